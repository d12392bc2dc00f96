"""NumPy functions whose result shape follows from their inputs' shapes, recorded as
NumPy steps inside the graph (like matmul) rather than breaking it: np.cumsum and
np.cumprod, np.diff, np.linalg.solve and np.linalg.inv. Each runs as NumPy itself at
run time (same values, same errors); what fuses around it stays in the graph. The
result dtype is NumPy's, from the call on one-element stand-ins."""
import numpy as np

from ..graph.node import Ref
from . import np_base as _nb
from .operands import Unsupported


_NOVALUE = getattr(np, "_NoValue", None)


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


def diff(tracer, fn, a, n=1, axis=-1, prepend=_NOVALUE, append=_NOVALUE):
    """np.diff without prepend/append: the axis shortened by n (to 0 at least)."""
    from .function_rules import as_lazy
    if prepend is not _NOVALUE or append is not _NOVALUE:
        raise Unsupported("unsupported", "np.diff with prepend or append")
    lz = as_lazy(tracer, a)
    if type(n) is not int or n < 0 or lz.ndim == 0:
        raise Unsupported("error", "np.diff: n must be a non-negative int, a at least 1-d")
    ax = _axis(axis, lz.ndim, "diff")
    shape = lz.shape[:ax] + (max(lz.shape[ax] - n, 0),) + lz.shape[ax + 1:]
    # np.diff of booleans is not_equal: still booleans
    dt = lz.dtype if n == 0 or lz.dtype == np.bool_ else _dtype_of(np.subtract, [lz, lz], {})
    return tracer.make(fn, (Ref(0),), {"n": n, "axis": ax}, (lz._n,), dt, shape, "diff")


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
    np.diff: diff,
    np.linalg.solve: solve,
    np.linalg.inv: inv,
}
