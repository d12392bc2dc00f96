"""The session's records: graph breaks, recompiles, compiles, kernel runs, fallbacks.

They are stored once, as the native profiler's event stream (profiler/src/session.cpp),
which every view reads: npcompile.report(), explain, the notebook report and widget, the
kernel's session file and the live attach. A record kind here is one event type there
(EVENT_OF_KIND), and the event's C++ struct declares its fields (kFields): a record with a
field the event does not declare is refused. Each type keeps its newest NPC_MAX_RECORDS
events; Session.total counts them all.

Without the native module (a build that failed) the records are kept in Python lists of
the same shape, so the package still traces, runs and reports."""
import os
import sys
import threading
import time

try:
    from ._native import profiler as _prof
except Exception:  # the package still traces and runs without its native half
    _prof = None

# Each kind of record and the profiler's event it is (profiler/include/npc/prof/*.hpp);
# tests/profiler/test_profiler_bindings.py checks that every event has one kind.
EVENT_OF_KIND = {
    "traces": "trace_start", "trace_ends": "trace_end", "graph_breaks": "graph_break",
    "recompiles": "recompile", "compiles": "compile", "kernels": "kernel_run",
    "fallbacks": "fallback", "kernel_sources": "kernel_source",
    "fusion_graphs": "fusion_graph", "transfers": "transfer", "eager_timings": "eager_timing",
    "path_choices": "path_choice", "loops": "loop",
}

# A record the store refuses is npcompile's own bug. The tests raise it (tests/conftest.py
# sets NPC_STRICT_RECORDS); a user's program is never stopped by it, and it is said once.
STRICT = os.environ.get("NPC_STRICT_RECORDS", "") not in ("", "0")


class _NativeStore:
    """The profiler's process-wide session."""

    def add(self, etype, record):
        _prof.emit(etype, **record)

    def records(self, etype):
        out = _prof.events(etype)
        for r in out:
            del r["type"]
        return out

    def total(self, etype):
        return _prof.total(etype)

    def clear(self):
        _prof.clear()

    def take(self):
        return _prof.take()


class _ListStore:
    """Python lists, for a package without its native module and for a Session of its
    own: each kind keeps its newest NPC_MAX_RECORDS, as the native store does."""
    CAP = int(os.environ.get("NPC_MAX_RECORDS", "100000") or 100000)

    def __init__(self):
        self._lock = threading.Lock()
        self._start = time.perf_counter()
        self.clear()

    def add(self, etype, record):
        record = dict(record, type=etype)
        record.setdefault("ts_us", (time.perf_counter() - self._start) * 1e6)
        with self._lock:
            kept = self._kept.setdefault(etype, [])
            kept.append(record)
            self._totals[etype] = self._totals.get(etype, 0) + 1
            if len(kept) > self.CAP + self.CAP // 4:  # trimmed now and then
                del kept[:len(kept) - self.CAP]

    def records(self, etype):
        with self._lock:
            return [{k: v for k, v in r.items() if k != "type"}
                    for r in self._kept.get(etype, ())]

    def total(self, etype):
        return self._totals.get(etype, 0)

    def clear(self):
        with self._lock:
            self._kept, self._totals = {}, {}

    def take(self):
        with self._lock:
            out = sorted((r for kept in self._kept.values() for r in kept),
                         key=lambda r: r["ts_us"])
            self._kept, self._totals = {}, {}
        return out


class Session:
    KINDS = tuple(EVENT_OF_KIND)

    def __init__(self, store=None):
        # a Session of its own (a test's) keeps its records apart; the process's SESSION
        # below is the profiler's
        self.store = store if store is not None else _ListStore()
        self.sinks = []  # callables(kind, record) told of each record: the live widget
        # callables(session) run before the records are read: CUDA kernel times still
        # in flight are waited for and recorded (backends/cuda_runtime.py)
        self.before_read = []
        self._refused = set()

    def add(self, kind, record):
        """Store one record: a dict of its event's fields (None for "not known")."""
        try:
            self.store.add(EVENT_OF_KIND[kind], record)
        except Exception as e:
            if STRICT:
                raise
            if kind not in self._refused:  # our bug, said once; the user's code goes on
                self._refused.add(kind)
                print(f"npcompile: a {kind} record could not be stored: {e}", file=sys.stderr)
            return
        for sink in self.sinks:
            try:
                sink(kind, record)
            except Exception:  # a broken widget never breaks the user's code
                pass

    def __getattr__(self, kind):
        """SESSION.kernels, SESSION.traces, ...: the kept records of that kind, oldest first."""
        etype = EVENT_OF_KIND.get(kind)
        if etype is None:
            raise AttributeError(kind)
        return self.store.records(etype)

    def total(self, kind):
        """Records of this kind ever added (the kept ones are the newest NPC_MAX_RECORDS)."""
        return self.store.total(EVENT_OF_KIND[kind])

    def clear(self):
        self.store.clear()

    def take(self):
        """Every kept record as (kind, record), in the order they were added, and forgets
        them in the same step."""
        kind_of = {e: k for k, e in EVENT_OF_KIND.items()}
        out = []
        for r in self.store.take():
            kind = kind_of.get(r.pop("type"))
            if kind is not None:
                out.append((kind, r))
        return out

    def settle(self):
        for hook in self.before_read:
            hook(self)

    def as_dict(self):
        self.settle()
        return {k: self.store.records(e) for k, e in EVENT_OF_KIND.items()}


SESSION = Session(_NativeStore() if _prof is not None else None)
