"""Creation functions with no array argument (np.zeros(n), np.arange, np.asarray(x)) do
not reach __array_function__, so from the first trace on the numpy module's entries are
wrappers that record them in the trace of the calling thread. Without a trace a wrapper
costs one thread-local lookup; patching per call would cost more than the call."""
import sys
import threading

import numpy as np

from . import index_concat, random_rules
from .context import recording
from .function_rules import CREATION
from .operand_types import Unsupported
from .user_calls import called_by_user

_lock = threading.Lock()
_originals = {}


def _wrapper(name, original):
    def wrapped(*args, **kwargs):
        tracer = recording()
        if tracer is None or not called_by_user(sys._getframe(1), name):
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
    if _originals:
        return
    with _lock:
        if not _originals:
            for name in CREATION:
                original = getattr(np, name)
                _originals[name] = original
                setattr(np, name, _wrapper(name, original))
            random_rules.patch()
            index_concat.patch()
