"""The records Dask's workers made running compiled chunks (dask_chunks.py), brought into
this process's session when it is read: compiles, kernels, graph breaks and fallbacks, each
with the `worker` that made it. A worker keeps its records until they are taken; a worker
thread in this very process (a cluster of threads) records here already."""
import os
import sys

from ..records import SESSION

_watching = [False]


def watch():
    """From the first Dask call on: the session's readers take the workers' records first."""
    if not _watching[0]:
        _watching[0] = True
        SESSION.before_read.append(pull)


def take_records(client_pid):
    """On a worker: its records since the last call, as (kind, record) in the order they
    were made, and forgets them in the same step; None in the client's own process (its
    records are the session already)."""
    if os.getpid() == client_pid:
        return None
    return SESSION.take()


def pull(session):
    """Every worker's records into `session`, each naming its worker (the default client's
    cluster; nothing without one)."""
    distributed = sys.modules.get("distributed")
    if distributed is None:
        return
    try:
        client = distributed.default_client()
    except ValueError:          # no client: Dask's local schedulers run in this process
        return
    if client.status not in ("running", "newly-created"):
        return
    try:
        got = client.run(take_records, os.getpid())
    except Exception as e:      # a worker gone: said, never raised at report()
        print(f"npcompile: the Dask workers' records could not be read: {e}", file=sys.stderr)
        return
    for worker, records in sorted(got.items()):
        for kind, r in records or ():
            # stamped here: a worker's clock counts from its own start, not this session's
            r.pop("ts_us", None)
            r.pop("tid", None)
            r["worker"] = worker
            session.add(kind, r)
