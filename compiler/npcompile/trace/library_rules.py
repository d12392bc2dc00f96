"""NumPy functions whose result shape follows from their inputs' shapes, recorded as
NumPy steps inside the graph (like matmul) rather than breaking it: np.cumsum and
np.cumprod, ufunc.accumulate, np.linalg.solve and np.linalg.inv. Each runs as NumPy
itself at run time (same values, same errors); what fuses around it stays in the graph.
The result dtype is NumPy's, from the call on one-element stand-ins."""
import numpy as np

from ..graph.node import Ref
from . import np_base as _nb
from .operands import Unsupported


def _dtype_of(fn, lzs, kw):
    """NumPy's result dtype for these operands, from one-element stand-ins of their ranks
    (a 1x1 matrix of ones is not singular)."""
    from .function_rules import _quiet
    try:
        return np.dtype(_quiet(fn, *[_nb.ones((1,) * max(lz.ndim, 1), lz.dtype) for lz in lzs],
                               **kw).dtype)
    except Exception as e:
        raise Unsupported("error", f"{getattr(fn, '__name__', fn)}: {e}")


def _axis(axis, ndim, name):
    if type(axis) is not int or not -ndim <= axis < ndim:
        raise Unsupported("error", f"np.{name}: axis {axis!r} out of range")
    return axis % ndim


def cumulative(tracer, fn, a, axis=None, dtype=None, out=None):
    """np.cumsum / np.cumprod: a's shape along an axis, flattened without one."""
    from .function_rules import as_lazy
    if out is not None:
        raise Unsupported("unsupported", f"np.{fn.__name__}(..., out=)")
    lz = as_lazy(tracer, a)
    kw = {} if dtype is None else {"dtype": dtype}
    if axis is None:
        shape = (lz.size,)
    else:
        if lz.ndim == 0:
            raise Unsupported("error", f"np.{fn.__name__}: axis given for a 0-d array")
        kw["axis"] = _axis(axis, lz.ndim, fn.__name__)
        shape = lz.shape
    dt = _dtype_of(fn, [lz], {k: v for k, v in kw.items() if k == "dtype"})
    return tracer.make(fn, (Ref(0),), kw or None, (lz._n,), dt, shape, fn.__name__)


def accumulate(tracer, ufunc, a, axis=0, dtype=None, out=None):
    """ufunc.accumulate (np.maximum.accumulate, np.add.accumulate...): a's shape."""
    from .function_rules import as_lazy
    if out is not None or ufunc.nin != 2 or ufunc.nout != 1:
        raise Unsupported("unsupported", f"np.{ufunc.__name__}.accumulate")
    lz = as_lazy(tracer, a)
    if lz.ndim == 0:
        raise Unsupported("error", "cannot accumulate on a scalar")
    kw = {"axis": _axis(axis, lz.ndim, f"{ufunc.__name__}.accumulate")}
    if dtype is not None:
        kw["dtype"] = dtype
    dt = _dtype_of(ufunc.accumulate, [lz], {k: v for k, v in kw.items() if k == "dtype"})
    return tracer.make(ufunc.accumulate, (Ref(0),), kw, (lz._n,), dt, lz.shape,
                       f"{ufunc.__name__}.accumulate")


def solve(tracer, fn, a, b):
    """np.linalg.solve(a, b): a square, b a vector or a matrix of right-hand sides (no
    broadcasting batch dimensions here)."""
    from .function_rules import as_lazy
    la, lb = as_lazy(tracer, a), as_lazy(tracer, b)
    if la.ndim != 2 or la.shape[0] != la.shape[1] or lb.ndim not in (1, 2) or \
            lb.shape[0] != la.shape[0]:
        raise Unsupported("unsupported", "np.linalg.solve beyond one square system")
    return tracer.make(fn, (Ref(0), Ref(1)), None, (la._n, lb._n),
                       _dtype_of(fn, [la, lb], {}), lb.shape, "solve")


def inv(tracer, fn, a):
    """np.linalg.inv of one square matrix."""
    from .function_rules import as_lazy
    lz = as_lazy(tracer, a)
    if lz.ndim != 2 or lz.shape[0] != lz.shape[1]:
        raise Unsupported("unsupported", "np.linalg.inv beyond one square matrix")
    return tracer.make(fn, (Ref(0),), None, (lz._n,), _dtype_of(fn, [lz], {}), lz.shape, "inv")


TABLE = {
    np.cumsum: cumulative,
    np.cumprod: cumulative,
    np.linalg.solve: solve,
    np.linalg.inv: inv,
}
