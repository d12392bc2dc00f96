"""np.r_[...] and np.c_[...] of traced arrays: a traced concatenation.

NumPy's index concatenators turn each item into an ndarray with np.array(item,
ndmin=...), a conversion no __array_function__ sees: a lazy array there was forced (a
value read), which cost the whole call its replay (a Newton solver's residual
`np.r_[u[1:], 0.0] - 2 * u + np.r_[0.0, u[:-1]]` was traced at every iteration). From
the first trace on, np.r_ and np.c_ are instances of subclasses whose __getitem__
records items of arrays and numbers as np.concatenate; anything else (slices, which
make ranges, and the string directives) is NumPy's own, as is any use outside a trace."""
import sys

import numpy as np

from .. import np_base as _nb
from . import lazy_array as _la
from .code_zones import zone_of
from .context import recording
from .function_rules import concatenate
from .operand_types import Unsupported

# name -> (ndmin, axis): r_ stacks items made at least 1-d along the first axis; c_
# makes 1-d items columns (trans1d=0) and stacks along the last
_FORMS = {"r_": (1, 0), "c_": (2, -1)}


def traced(tracer, original, name, key):
    """original[key] (np.r_ or np.c_) as a traced np.concatenate of its items."""
    items = key if type(key) is tuple else (key,)
    if not any(type(x) is _la.LazyArray for x in items):
        raise Unsupported("unsupported", f"np.{name} of no traced array")
    for x in items:
        if type(x) not in (_la.LazyArray, np.ndarray) and not (
                isinstance(x, (int, float, complex, np.generic)) and not isinstance(x, str)):
            raise Unsupported("unsupported", f"np.{name} with ranges or directives")
    # NumPy's own result on stand-ins: its dtype (scalars do not up-cast arrays), its
    # shape, and its errors
    probe = original[tuple(np.broadcast_to(_nb.zeros((), x.dtype), x.shape)
                           if type(x) is _la.LazyArray else x for x in items)]
    ndmin, axis = _FORMS[name]
    pieces = []
    for x in items:
        if type(x) is _la.LazyArray:
            piece = x if x.dtype == probe.dtype else x.astype(probe.dtype)
        else:
            piece = _nb.asarray(x).astype(probe.dtype)
        if piece.ndim < ndmin:
            # r_: a number is a 1-element array; c_: a vector is a column, a number 1x1
            piece = piece.reshape(piece.shape + (1,) * (ndmin - piece.ndim))
        pieces.append(piece)
    got = concatenate(tracer, np.concatenate, pieces, axis=axis)
    if got.shape != probe.shape or got.dtype != probe.dtype:
        raise Unsupported("unsupported", f"np.{name}: a result unlike NumPy's")
    return got


def _traced_concatenator(name, original):
    class Traced(type(original)):
        __doc__ = type(original).__doc__

        def __getitem__(self, key):
            tracer = recording()
            if tracer is not None and zone_of(sys._getframe(1).f_code.co_filename) == "user":
                try:
                    return traced(tracer, original, name, key)
                except Unsupported:
                    pass
            return original[key]
    Traced.__name__ = type(original).__name__
    Traced.__qualname__ = type(original).__qualname__
    Traced.__module__ = type(original).__module__
    return Traced()


def patch():
    """Called once, with the first trace (creation.enter)."""
    for name in _FORMS:
        original = getattr(np, name)
        setattr(np, name, _traced_concatenator(name, original))
