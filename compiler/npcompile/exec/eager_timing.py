"""Eager NumPy time of a graph, for the reports' "speedup over eager NumPy".

When measuring is on, the first execution of each compiled graph also replays the graph
op by op in NumPy (the reference executor, which is exactly what eager NumPy does) on the
same inputs, timed (WARM_RUNS after a first run, below). The graph is functional
(in-place writes are new versions, and updates copy their base), so the replay changes
nothing the user sees; its results are thrown away. The report divides eager time per execution by compiled kernel time per
execution: tracing and compiling are not in either side.

It costs a few eager runs per graph, so it is opt-in: `%%npcompile --report` measures the
graphs of its cell; NPC_MEASURE_EAGER=1 or `enable()` measures every graph.
"""
import contextlib
import os
import time

from . import reference

# Eager runs timed per graph after a first one that warms NumPy's caches and allocator,
# their median taken: one cold run gave the same cell 84x once and 113x the next. Fewer
# where they would take longer than BUDGET_S together (the first run's time foretells
# theirs): a graph of seconds is timed once, cold.
WARM_RUNS = 3
BUDGET_S = 0.25

_state = {"on": os.environ.get("NPC_MEASURE_EAGER", "") == "1", "depth": 0}
_measured = set()  # graph ids (unique for the life of the process)


def enable(on=True):
    """Measure every compiled graph from now on (or stop)."""
    _state["on"] = bool(on)


def enabled():
    return _state["on"] or _state["depth"] > 0


@contextlib.contextmanager
def measuring():
    """Measure the graphs run inside the block (the cell of `%%npcompile --report`)."""
    _state["depth"] += 1
    try:
        yield
    finally:
        _state["depth"] -= 1


def maybe_measure(session, tracer, graph_id, pending, outputs):
    """Called before a compiled graph runs: times eager replays (tracing suspended) the
    first time a graph runs while measuring is on; records nothing if a replay fails (the
    compiled run and its own fallback decide what the user gets)."""
    if graph_id in _measured or not enabled():
        return
    _measured.add(graph_id)

    def run():
        t0 = time.perf_counter()
        reference.execute(pending, outputs)
        return time.perf_counter() - t0
    with tracer.suspended():
        try:
            first = run()
            warm = sorted(run() for _ in range(
                WARM_RUNS if first * (WARM_RUNS + 1) <= BUDGET_S else 0)) or [first]
        except Exception:
            return
    session.add("eager_timings", {"graph_id": graph_id, "runs": len(warm),
                                  "ms": warm[(len(warm) - 1) // 2] * 1e3})
