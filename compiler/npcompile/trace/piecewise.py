"""np.piecewise as NumPy computes it: y = zeros_like(x), then per piece
`y[cond] = func(x[cond])` (or the constant given instead of a function), an "otherwise"
piece where no condition holds when one function more than conditions is given.

Traced, x[cond] is a Selected (masked_select.py): a func made of elementwise operations
keeps it one, and the write is np.where(cond, func(x), y), so the pieces fuse into one
kernel. Any other func makes NumPy's compact x[cond] (a break), and what it computes is
NumPy's. NumPy calls no func on a piece that selects nothing: where that is known (the
compact array was made, and is empty), neither is its result written, nor its error
raised."""
import numpy as np

from . import lazy_array as _la
from .operands import Unsupported, as_lazy


def piecewise(tracer, fn, x, condlist, funclist, *args, **kw):
    lx = as_lazy(tracer, x)
    if lx.ndim == 0 or not isinstance(condlist, (list, tuple)) or \
            not isinstance(funclist, (list, tuple)) or not condlist or \
            any(type(c) not in (_la.LazyArray, np.ndarray) for c in condlist):
        raise Unsupported("unsupported", "np.piecewise of a 0-d array, or of conditions "
                                         "that are not arrays in a list")
    conds = [as_lazy(tracer, c) for c in condlist]
    if any(c.dtype != np.bool_ or c.shape != lx.shape for c in conds):
        raise Unsupported("unsupported", "np.piecewise of conditions that are not boolean "
                                         "arrays of x's shape")
    if len(conds) == len(funclist) - 1:     # the otherwise piece
        anyof = conds[0]
        for c in conds[1:]:
            anyof = anyof | c
        conds.append(~anyof)
    elif len(conds) != len(funclist):
        raise Unsupported("error", "np.piecewise: with N conditions, either N or N+1 "
                                   "functions are expected")
    y = np.zeros_like(lx)
    for cond, func in zip(conds, funclist):
        if not callable(func):
            y[cond] = func
            continue
        vals = lx[cond]
        try:
            r = func(vals, *args, **kw)
        except Exception:
            if _selects_nothing(vals):
                continue
            raise
        if not _selects_nothing(vals):
            y[cond] = r
    return y


def _selects_nothing(vals):
    """Is vals NumPy's compact x[cond], known to be empty?"""
    mat = getattr(vals, "_mat", vals) if getattr(type(vals), "_npc_selected", False) else vals
    return mat is not None and getattr(mat, "size", 1) == 0


TABLE = {np.piecewise: piecewise}
