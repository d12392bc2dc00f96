"""The tracer running on this thread, or None: what every lazy array and rule asks
first. At the bottom of the trace package (the tracer sets it, everything reads it)."""
import threading

from ..trace_core import core

if core is not None:  # the C++ op recorder reads the current tracer on every op
    current = core.current
    _set_current = core.set_current
else:
    _local = threading.local()

    def current():
        return getattr(_local, "tracer", None)

    def _set_current(tracer):
        _local.tracer = tracer
