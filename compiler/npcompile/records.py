"""The session's records: graph breaks, recompiles, compiles, kernel runs, fallbacks.
Every report is a view of these (npcompile.report(), explain, the notebook report)."""
import os
import threading
import time

# Records kept per kind, the oldest dropped first: a notebook open for a day calls its
# functions millions of times (a replayed call adds a trace and its kernels' records).
# NPC_MAX_RECORDS changes it; totals are kept whole (Session.total).
MAX_RECORDS = int(os.environ.get("NPC_MAX_RECORDS", "20000") or 20000)
# a compiled graph's kernel sources and fusion graph weigh 3-4 KB each, five times a
# run's records: a tenth as many are kept (at the caps a session holds about 90 MB of
# records, against 220 MB with every kind at MAX_RECORDS)
_CAPS = {"kernel_sources": max(1, MAX_RECORDS // 10), "fusion_graphs": max(1, MAX_RECORDS // 10)}


# Each kind of record and the profiler's event it is (profiler/include/npc/prof/*.hpp): the
# event's fields are declared once, in its C++ struct's kFields, and report.py forwards a
# record's fields from that table (npcompile._native.profiler.event_types()), not a list of
# its own; tests/profiler/test_profiler_bindings.py checks that every event has one kind.
EVENT_OF_KIND = {
    "traces": "trace_start", "trace_ends": "trace_end", "graph_breaks": "graph_break",
    "recompiles": "recompile", "compiles": "compile", "kernels": "kernel_run",
    "fallbacks": "fallback", "kernel_sources": "kernel_source",
    "fusion_graphs": "fusion_graph", "transfers": "transfer", "eager_timings": "eager_timing",
    "path_choices": "path_choice", "loops": "loop",
}


class Session:
    KINDS = tuple(EVENT_OF_KIND)

    def __init__(self):
        self._lock = threading.Lock()
        self.start = time.perf_counter()
        self.sinks = []  # callables(kind, record): e.g. the native profiler
        # callables(session) run before the records are read: CUDA kernel times still
        # in flight are waited for and recorded (backends/cuda_runtime.py)
        self.before_read = []
        self.clear()

    def clear(self):
        with self._lock:
            for k in self.KINDS:
                setattr(self, k, [])
            self._totals = dict.fromkeys(self.KINDS, 0)

    def total(self, kind):
        """Records of this kind ever added (the kept ones are the last MAX_RECORDS)."""
        return self._totals[kind]

    def add(self, kind, record):
        if "ts_us" not in record:
            record["ts_us"] = (time.perf_counter() - self.start) * 1e6
        records = getattr(self, kind)
        records.append(record)  # one append is atomic under the GIL
        self._totals[kind] += 1
        cap = _CAPS.get(kind, MAX_RECORDS)
        if len(records) > cap + cap // 4:   # trimmed now and then
            with self._lock:
                del records[:len(records) - cap]
        for sink in self.sinks:
            try:
                sink(kind, record)
            except Exception:  # a broken viewer never breaks the user's code
                pass

    def settle(self):
        for hook in self.before_read:
            hook(self)

    def as_dict(self):
        self.settle()
        with self._lock:
            return {k: [dict(r) for r in getattr(self, k)] for k in self.KINDS}


SESSION = Session()
