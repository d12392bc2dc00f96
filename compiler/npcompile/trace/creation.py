"""Creation functions with no array argument (np.zeros(n), np.arange, np.asarray(x)) do
not reach __array_function__, so while any trace is active the numpy module's entries
are swapped for wrappers that record them in the trace of the calling thread."""
import threading

import numpy as np

_lock = threading.Lock()
_active = 0
_originals = {}


def _wrapper(name, original):
    def wrapped(*args, **kwargs):
        from .function_rules import CREATION
        from .operands import Unsupported
        from .tracer import current
        tracer = current()
        if tracer is None:
            return original(*args, **kwargs)
        try:
            return CREATION[name](tracer, original, *args, **kwargs)
        except Unsupported:
            return original(*args, **kwargs)
        except TypeError:
            return original(*args, **kwargs)
    wrapped.__name__ = name
    wrapped.__wrapped__ = original
    wrapped.__doc__ = original.__doc__
    return wrapped


def enter():
    global _active
    with _lock:
        _active += 1
        if _active == 1:
            from .function_rules import CREATION
            for name in CREATION:
                original = getattr(np, name)
                _originals[name] = original
                setattr(np, name, _wrapper(name, original))


def exit():
    global _active
    with _lock:
        _active -= 1
        if _active == 0:
            for name, original in _originals.items():
                setattr(np, name, original)
            _originals.clear()
