"""NumPy functions whose results are views of their input, composed of basic indexing,
transposes and flips as NumPy composes them: np.split, np.array_split, np.hsplit,
np.vsplit, np.dsplit, np.atleast_1d / 2d / 3d, np.rot90. A view stays a view (a write
through a piece of np.split reaches the array split), which a library step, a copy,
would not; and the pieces fuse into the kernels that read them."""
import operator

import numpy as np

from .operands import NUMPY2, Unsupported, as_lazy


def _count(v, what):
    try:
        return operator.index(v)
    except TypeError:
        raise Unsupported("unsupported", f"{what} {v!r}")


def _pieces(x, indices_or_sections, axis, equal):
    """The sub-arrays along axis, as NumPy's array_split cuts them (np.split: only into
    equal sections)."""
    if not -x.ndim <= axis < x.ndim:
        raise Unsupported("error", f"axis {axis} is out of bounds for array of dimension "
                                   f"{x.ndim}")
    axis %= x.ndim
    n = x.shape[axis]
    if isinstance(indices_or_sections, (list, tuple)) or np.ndim(indices_or_sections) == 1:
        cuts = [_count(i, "a split index") for i in indices_or_sections]
        points = [0] + cuts + [n]
    else:
        parts = _count(indices_or_sections, "a number of sections")
        if parts <= 0:
            raise Unsupported("error", "number sections must be larger than 0.")
        if equal and n % parts:
            raise Unsupported("error", "array split does not result in an equal division")
        each, extra = divmod(n, parts)
        sizes = [each + 1] * extra + [each] * (parts - extra)
        points = [0] + list(np.cumsum(sizes).tolist())
    lead = (slice(None),) * axis
    return [x[lead + (slice(a, b),)] for a, b in zip(points[:-1], points[1:])]


def split(tracer, fn, ary, indices_or_sections, axis=0):
    return _pieces(as_lazy(tracer, ary), indices_or_sections, _count(axis, "an axis"),
                   fn is np.split)


def _split_along(axis_of, least):
    """np.hsplit / vsplit / dsplit: np.split along a fixed axis, of arrays of at least
    `least` dimensions."""
    def rule(tracer, fn, ary, indices_or_sections):
        x = as_lazy(tracer, ary)
        if x.ndim < least or x.ndim == 0:
            raise Unsupported("error", f"np.{fn.__name__} only works on arrays of "
                                       f"{least} or more dimensions")
        return _pieces(x, indices_or_sections, axis_of(x.ndim), True)
    return rule


def _at_least(ndim):
    """np.atleast_1d / 2d / 3d: each array itself when it has the dimensions, else a
    view with new axes where NumPy puts them; one array, or a list (a tuple on NumPy 2)."""
    def rule(tracer, fn, *arys):
        if not arys:
            raise Unsupported("unsupported", f"np.{fn.__name__}()")
        out = []
        for a in arys:
            x = as_lazy(tracer, a)
            if x.ndim >= ndim:
                out.append(x)
            elif x.ndim == 0:
                out.append(x.reshape((1,) * ndim))
            elif ndim == 2:
                out.append(x[None, :])
            elif x.ndim == 1:
                out.append(x[None, :, None])
            else:
                out.append(x[:, :, None])
        if len(out) == 1:
            return out[0]
        return tuple(out) if NUMPY2 else out
    return rule


def rot90(tracer, fn, m, k=1, axes=(0, 1)):
    """As NumPy turns an array: flips and a transpose of two axes, all views."""
    x = as_lazy(tracer, m)
    axes = tuple(_count(a, "an axis") for a in axes)
    if len(axes) != 2 or x.ndim < 2 or any(not -x.ndim <= a < x.ndim for a in axes) or \
            axes[0] % x.ndim == axes[1] % x.ndim:
        raise Unsupported("error", "np.rot90: axes must be two different axes of an array "
                                   "of at least 2 dimensions")
    k = _count(k, "np.rot90: k") % 4
    if k == 0:
        return x[:]
    if k == 2:
        return np.flip(np.flip(x, axes[0]), axes[1])
    order = list(range(x.ndim))
    order[axes[0]], order[axes[1]] = order[axes[1]], order[axes[0]]
    if k == 1:
        return np.transpose(np.flip(x, axes[1]), order)
    return np.flip(np.transpose(x, order), axes[1])


TABLE = {
    np.split: split, np.array_split: split,
    np.hsplit: _split_along(lambda nd: 1 if nd > 1 else 0, 1),
    np.vsplit: _split_along(lambda nd: 0, 2),
    np.dsplit: _split_along(lambda nd: 2, 3),
    np.atleast_1d: _at_least(1), np.atleast_2d: _at_least(2), np.atleast_3d: _at_least(3),
    np.rot90: rot90,
}
