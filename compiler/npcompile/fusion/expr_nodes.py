"""The kernel expression node (fusion/expr.py lowers graph nodes to these) and the map of a
view as index arithmetic, which the lowering and fusion/paste.py both read."""
import numpy as np

from ..graph.layout import fake_of


class Expr:
    __slots__ = ("kind", "op", "inputs", "shape", "dtype", "attrs", "node", "__weakref__")

    def __init__(self, kind, op, inputs, shape, dtype, attrs=None, node=None):
        self.kind = kind
        self.op = op
        self.inputs = inputs
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype) if dtype is not None else None
        self.attrs = attrs or {}
        self.node = node   # the graph node this expression computes (for comments, lines)


_ELEMENTS = np.dtype(np.int8)   # a stand-in whose strides and offsets count elements


def view_map(shape, apply):
    """(view shape, per base dim (start, ((view dim, step), ...))) of a view, or None
    when its elements are not an affine function of the base's per-dimension index."""
    base = fake_of(_ELEMENTS, tuple(shape))
    try:
        v = apply(base)
    except Exception:
        return None
    if not isinstance(v, np.ndarray) or v.size == 0 or base.size == 0:
        return None
    off = v.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    dims = [b for b in range(len(shape)) if shape[b] != 1]
    cs = {b: base.strides[b] for b in dims}
    start = {}
    for b in dims:                 # strides fall from the outermost dim: mixed radix
        start[b], off = divmod(off, cs[b]) if off >= 0 else (None, off)
    if off != 0 or any(s is None for s in start.values()):
        return None
    steps = {b: [] for b in dims}
    for d, (n, s) in enumerate(zip(v.shape, v.strides)):
        if n == 1 or s == 0:
            continue
        b = next((b for b in dims if cs[b] <= abs(s)), None)
        if b is None or abs(s) % cs[b]:
            return None
        steps[b].append((d, s // cs[b]))
    for b in dims:                 # every element inside the base (merged dims are not)
        lo = hi = start[b]
        for d, k in steps[b]:
            lo, hi = (lo + k * (v.shape[d] - 1), hi) if k < 0 else (lo, hi + k * (v.shape[d] - 1))
        if lo < 0 or hi >= shape[b]:
            return None
    return tuple(v.shape), tuple((start[b], tuple(steps[b])) if b in start else (0, ())
                                 for b in range(len(shape)))
