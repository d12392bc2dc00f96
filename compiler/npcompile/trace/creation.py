"""Creation functions with no array argument (np.zeros(n), np.arange, np.asarray(x)) do
not reach __array_function__, so from the first trace on the numpy module's entries are
wrappers that record them in the trace of the calling thread. Without a trace a wrapper
costs one thread-local lookup; patching per call would cost more than the call."""
import linecache
import sys
import threading

import numpy as np

from .code_zones import zone_of

_lock = threading.Lock()
_originals = {}


def _wrapper(name, original):
    def wrapped(*args, **kwargs):
        tracer = _current()
        if tracer is None or not called_by_user(sys._getframe(1), name):
            return original(*args, **kwargs)
        from .function_rules import CREATION
        from .operands import Unsupported
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


def called_by_user(frame, name):
    """Did the user's own code call np.<name> here, rather than a library it called?
    C code (numpy.random's Cython, for one) looks np.empty up in the numpy module and
    runs no Python frame of its own: such a call shows up as coming from the user's
    line, which is calling something else. A lazy array handed to C code that reads
    its memory would be a crash, so only a call whose own expression names the
    function is recorded; library and NumPy Python code always get real arrays."""
    code = frame.f_code
    key = (code, frame.f_lasti)
    got = _callers.get(key)
    if got is None:
        got = _callers[key] = _names_call(frame, name)
    return got


def _names_call(frame, name):
    code = frame.f_code
    if zone_of(code.co_filename) != "user":
        return False
    try:
        positions = list(code.co_positions())[frame.f_lasti // 2]
        line, end_line, col, end_col = positions
        lines = [linecache.getline(code.co_filename, n) for n in range(line, end_line + 1)]
        if all(lines) and col is not None and end_col is not None:
            text = "".join(lines)
            end = len(text) - len(lines[-1]) + end_col
            callee = text[col:end].split("(", 1)[0].strip()
            return callee == name or callee.endswith("." + name)
    except (AttributeError, IndexError, TypeError, ValueError):
        pass
    return name in code.co_names  # no source to read: the code names the function


_callers = {}   # (code, offset of the call) -> bool


def _current():
    return None  # no trace has started yet; enter() binds the tracer's own lookup


def enter():
    global _current
    if _originals:
        return
    with _lock:
        if not _originals:
            from .function_rules import CREATION
            from .tracer import current
            _current = current
            for name in CREATION:
                original = getattr(np, name)
                _originals[name] = original
                setattr(np, name, _wrapper(name, original))
            from . import random_rules
            random_rules.patch(current)

