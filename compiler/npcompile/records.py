"""The session's records: graph breaks, recompiles, compiles, kernel runs, fallbacks.
Every report is a view of these (npcompile.report(), explain, the notebook report)."""
import threading
import time


class Session:
    KINDS = ("traces", "graph_breaks", "recompiles", "compiles", "kernels", "fallbacks",
             "kernel_sources", "fusion_graphs", "transfers", "eager_timings", "path_choices",
             "loops")

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

    def add(self, kind, record):
        if "ts_us" not in record:
            record["ts_us"] = (time.perf_counter() - self.start) * 1e6
        getattr(self, kind).append(record)  # one append is atomic under the GIL
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
