"""A write to part of an array (`u[1:-1] = u[1:-1] + r * (u[2:] - 2 * u[1:-1] + u[:-2])`,
`inner[mask] = ...` through `inner = phi[1:-1, 1:-1]`) as the array's next value computed
by a kernel: the written box holds the value, the rest of the array is its old value,
read through views, one concatenation per axis along which the box does not span the
array. As a NumPy step (graph/calls.update) the write cut the kernels in two, and in a
loop body run in C++ it was a call back into Python per iteration: a red-black SOR
sweep's two masked writes cost more than its stencils.

Only boxes of at least half the array: the kernel writes the whole new version, where
the NumPy step writes just the box in place when no one sees the old value
(fusion/reuse.py). A row of a matrix per iteration of a loop over k stays the step:
as kernels, a 200x200 factorization copied its matrix 200 times."""
import numpy as np

from ..graph import calls
from ..graph.layout import fake_of
from .expr_nodes import Expr, view_map

# the smallest part of the array a pasted box may be (see above)
MIN_SHARE = 0.5


def box_of(shape, dtype, chain, key):
    """(box, region shape, region axis -> array axis) of `array[chain][key]` as a box of
    the array with unit steps: box[(lo, hi)] per axis of the array. None where the region
    is anything else (steps, reversed or merged axes, a complex array's real part),
    empty, or too small a part."""
    def region(a):
        r = calls.apply_chain(a, chain) if chain else a
        return r if key is calls.NOKEY else r[key]
    try:
        if region(fake_of(dtype, tuple(shape))).dtype != dtype:
            return None
    except Exception:
        return None
    m = view_map(shape, region)
    if m is None:
        return None
    rshape, per_axis = m
    box, axis_of = [], {}
    for b, (start, steps) in enumerate(per_axis):
        if len(steps) > 1 or any(k != 1 for _, k in steps):
            return None
        if steps:
            d = steps[0][0]
            axis_of[d] = b
            box.append((start, start + rshape[d]))
        else:   # an int index, a slice of one element, an axis of one element
            box.append((start, start + 1) if shape[b] != 1 else (0, 1))
    if np.prod([hi - lo for lo, hi in box]) < MIN_SHARE * np.prod(shape):
        return None
    return box, rshape, axis_of


def paste(base, value, box, rshape, axis_of, shape, dtype, node):
    """base's next value with value (an Expr broadcasting to rshape) written into box."""
    bshape = tuple(hi - lo for lo, hi in box)
    if value.kind == "const":
        cur = Expr("const", value.op, [], bshape, dtype)
    else:
        cur = _into_box(value, rshape, axis_of, bshape)
        if cur is None:
            return None
    for d in range(len(shape) - 1, -1, -1):
        lo, hi = box[d]
        if lo == 0 and hi == shape[d]:
            continue
        pieces = []
        for a, b in ((0, lo), (hi, shape[d])):
            if b > a:
                pieces.append(_old(base, box, d, a, b, shape))
        pieces.insert(1 if lo > 0 else 0, cur)
        cur = Expr("concat", None, pieces, _spanned(box, d, shape), dtype, {"axis": d})
    if cur.kind != "concat":    # the box is the whole array (seen through a transpose)
        return Expr("cast", None, [cur], shape, dtype, node=node)
    cur.node = node
    return cur


def _spanned(box, d, shape):
    """The shape of the new value once the axes from d on span the array."""
    return tuple(hi - lo for lo, hi in box[:d]) + tuple(shape[d:])


def _old(base, box, d, a, b, shape):
    """The old value of the array where axis d runs over [a, b): the box's range along
    the axes before d, the whole array along those after it."""
    ranges = list(box[:d]) + [(a, b)] + [(0, n) for n in shape[d + 1:]]
    m = tuple((lo, ((axis, 1),) if hi - lo > 1 else ()) for axis, (lo, hi) in enumerate(ranges))
    return Expr("view", None, [base], tuple(hi - lo for lo, hi in ranges), base.dtype, {"map": m})


def _into_box(value, rshape, axis_of, bshape):
    """value, broadcast to the region's shape, read at the box's index: each of its axes
    (aligned with the region's from the right) follows the array axis its region axis
    is, or stays at 0 where it has one element. None where it does not broadcast."""
    vs = value.shape
    off = len(rshape) - len(vs)
    if off < 0:
        return None
    m = []
    for v, n in enumerate(vs):
        r = off + v
        if n == 1:
            m.append((0, ()))
        elif n == rshape[r] and r in axis_of:
            m.append((0, ((axis_of[r], 1),)))
        else:
            return None
    if vs == bshape and all(s == ((v, 1),) for v, (_, s) in enumerate(m)):
        return value      # the box itself, axis for axis
    return Expr("view", None, [value], bshape, value.dtype, {"map": tuple(m)})
