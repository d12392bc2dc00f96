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


def recording():
    """The tracer that records NumPy calls on plain values (creation functions, random
    draws, np.r_): the current one, unless it runs the function's own code eagerly and
    only its loops compiled (Tracer.loops_only, api/jit.py's loops path)."""
    tracer = current()
    return None if tracer is None or tracer.loops_only else tracer
