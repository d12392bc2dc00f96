"""NumPy functions that are compositions of views, concatenations and ufuncs: np.roll,
np.pad, np.hstack and its kin, np.append, np.insert at one index, np.flip, np.diff, and
the triangles and diagonals (np.triu, np.tril, np.diag, np.diagflat, np.diagonal),
np.select, and the scans written with np.cumsum and np.cumprod (np.nancumsum,
np.nancumprod, NumPy 2's np.cumulative_sum and np.cumulative_prod).
Recorded as those compositions, they fuse into the kernels that read them
(fusion/expr.py lowers a concatenation to a select on the index, and a view of a
concatenation to index arithmetic): a padded or stacked array is never written out
just to be read back."""
import inspect
import operator

import numpy as np

from .. import np_base as _nb
from . import lazy_array as _la
from .python_numbers import lazy_bool, lazy_int
from .operands import Unsupported
from .function_rules import _NOVALUE, concatenate, eye, filled
from .library_rules import _quiet_probe
from .operands import NUMPY2, as_lazy
from .view_rules import pure_view


def _axis_slices(ndim, d, sl):
    key = [slice(None)] * ndim
    key[d] = sl
    return tuple(key)


def roll(tracer, fn, a, shift, axis=None):
    """np.roll as NumPy computes it: per axis, the last `shift % n` entries then the rest
    (two slices joined), a flattened roll for axis=None; always a new array. Stencils
    with periodic edges (np.roll(u, 1) - 2 * u + np.roll(u, -1)) then stay one graph.
    Anything unusual (axis out of range, shifts that are not ints) is NumPy's to raise."""
    lz = as_lazy(tracer, a)
    if _traced_int(shift) and (axis is None or isinstance(axis, (int, np.integer))):
        return _roll_by_value(lz, shift, axis)
    if axis is None:
        if not isinstance(shift, (int, np.integer)):
            raise Unsupported("error", "np.roll(axis=None) takes one shift")
        if lz.ndim == 1:    # (ravel and reshape would be NumPy steps of their own)
            return roll(tracer, fn, lz, shift, 0)
        return roll(tracer, fn, lz.ravel(), shift, 0).reshape(lz.shape)
    shifts = np.broadcast_arrays(np.asarray(shift), np.asarray(axis)) \
        if not (isinstance(shift, (int, np.integer)) and isinstance(axis, (int, np.integer))) \
        else (np.asarray([shift]), np.asarray([axis]))
    sh, ax = (np.atleast_1d(x) for x in shifts)
    if sh.dtype.kind not in "iu" or ax.dtype.kind not in "iu" or sh.ndim > 1:
        raise Unsupported("error", "np.roll: shifts and axes must be integers")
    total = {}
    for s_, x_ in zip(sh.tolist(), ax.tolist()):
        if not -lz.ndim <= x_ < lz.ndim:
            raise Unsupported("error", f"np.roll: axis {x_} is out of bounds")
        total[x_ % lz.ndim] = total.get(x_ % lz.ndim, 0) + s_
    out = lz
    for d, s_ in total.items():
        n = lz.shape[d]
        k = s_ % n if n else 0
        if k == 0:
            continue
        head = out[_axis_slices(lz.ndim, d, slice(n - k, None))]
        tail = out[_axis_slices(lz.ndim, d, slice(None, n - k))]
        out = concatenate(tracer, np.concatenate, [head, tail], axis=d)
    return out.copy() if out is lz else out


def _traced_int(x):
    """A signed integer computed in the trace (`np.roll(sig, -lags[i])`)."""
    return type(x) is _la.LazyArray and x._scalar and x.dtype.kind == "i"


def _roll_by_value(lz, shift, axis):
    """np.roll by a shift the trace computes: a gather of index (i - shift) mod n along
    the axis, NumPy's result, with no graph break for the shift's value (it was one
    per call, and the call was run eagerly)."""
    if axis is None:
        flat = lz.ravel()
        return _roll_by_value(flat, shift, 0).reshape(lz.shape)
    if not -lz.ndim <= axis < lz.ndim:
        raise Unsupported("error", f"np.roll: axis {axis} is out of bounds")
    d = axis % lz.ndim
    n = lz.shape[d]
    if n == 0:
        return lz.copy()
    idx = (np.arange(n) - shift) % n
    return lz[_axis_slices(lz.ndim, d, idx)]


def _flip_along(x, d):
    return x[_axis_slices(x.ndim, d, slice(None, None, -1))]


def _pairs(value, ndim, what):
    """pad_width or constant_values as NumPy broadcasts them: a (before, after) per axis."""
    try:
        arr = np.broadcast_to(np.asarray(value), (ndim, 2))
    except ValueError as e:
        raise Unsupported("error", f"np.pad: {what}: {e}")
    return [tuple(row) for row in arr.tolist()]


def _pad_pieces(tracer, x, d, before, after, mode, const_pair):
    """The pieces before and after x along axis d, as views of x or constants."""
    n = x.shape[d]
    widths = (before, after)
    if mode == "constant":
        return [filled(tracer, np.full, x.shape[:d] + (k,) + x.shape[d + 1:], v, dtype=x.dtype)
                if k else None for k, v in zip(widths, const_pair)]
    if n == 0:
        raise Unsupported("error", f"np.pad: can't extend empty axis {d} using modes other "
                                   f"than 'constant' or 'empty'")

    def along(start, stop, flip=False):
        piece = x[_axis_slices(x.ndim, d, slice(start, stop))]
        return _flip_along(piece, d) if flip else piece
    if mode == "edge":
        ends = (along(0, 1), along(n - 1, n))
        return [np.broadcast_to(e, x.shape[:d] + (k,) + x.shape[d + 1:]) if k else None
                for e, k in zip(ends, widths)]
    if mode in ("wrap", "symmetric") and (before > n or after > n):
        raise Unsupported("unsupported", f"np.pad(mode={mode!r}) wider than the axis")
    if mode == "wrap":
        spans = ((n - before, n, False), (0, after, False))
    elif mode == "symmetric":
        spans = ((0, before, True), (n - after, n, True))
    else:   # reflect: the edge itself is not repeated
        if before >= n or after >= n:
            raise Unsupported("unsupported", "np.pad(mode='reflect') as wide as the axis")
        spans = ((1, before + 1, True), (n - 1 - after, n - 1, True))
    return [along(*span) if k else None for span, k in zip(spans, widths)]


_PAD_MODES = {"constant", "edge", "wrap", "reflect", "symmetric"}


def pad(tracer, fn, array, pad_width, mode="constant", **kwargs):
    """Axis by axis, as NumPy pads (a later axis pads the corners the earlier made)."""
    if callable(mode) or mode not in _PAD_MODES:
        raise Unsupported("unsupported", f"np.pad(mode={mode!r})")
    allowed = {"constant": {"constant_values"}, "reflect": {"reflect_type"},
               "symmetric": {"reflect_type"}}.get(mode, set())
    if set(kwargs) - allowed:
        raise Unsupported("error", f"unsupported keyword arguments for mode '{mode}': "
                                   f"{set(kwargs) - allowed}")
    if kwargs.get("reflect_type", "even") != "even":
        raise Unsupported("unsupported", "np.pad(reflect_type='odd')")
    x = as_lazy(tracer, array)
    widths = _pairs(pad_width, x.ndim, "pad_width")
    if any(type(w) is not int or w < 0 for pair in widths for w in pair):
        raise Unsupported("error", "np.pad: index can't contain negative values")
    consts = _pairs(kwargs.get("constant_values", 0), x.ndim, "constant_values")
    if mode == "constant" and x.dtype.kind in "iub" and \
            any(isinstance(v, float) and v != v for pair in consts for v in pair):
        raise Unsupported("error", "np.pad: cannot convert float NaN to integer")
    out = x
    for d, (before, after) in enumerate(widths):
        if not before and not after:
            continue
        head, tail = _pad_pieces(tracer, out, d, before, after, mode, consts[d])
        pieces = [p for p in (head, out, tail) if p is not None]
        out = concatenate(tracer, np.concatenate, pieces, axis=d)
    return out.copy() if out is x else out


def _stack_parts(tracer, arrays, fname):
    if isinstance(arrays, np.ndarray) or not hasattr(arrays, "__iter__"):
        raise Unsupported("error", f"{fname}: arrays to stack must be passed as a sequence")
    parts = [as_lazy(tracer, a) for a in arrays]
    if not parts:
        raise Unsupported("error", "need at least one array to concatenate")
    return parts


def _at_least(x, nd):
    """np.atleast_2d / atleast_1d as views: (n,) -> (1, n), () -> (1,) or (1, 1)."""
    while x.ndim < nd:
        x = x[None] if x.ndim else x.reshape((1,))
    return x


def hstack(tracer, fn, tup, **kwargs):
    parts = [_at_least(p, 1) for p in _stack_parts(tracer, tup, "np.hstack")]
    return concatenate(tracer, np.concatenate, parts, axis=0 if parts[0].ndim == 1 else 1,
                       **kwargs)


def vstack(tracer, fn, tup, **kwargs):
    parts = [_at_least(p, 2) for p in _stack_parts(tracer, tup, "np.vstack")]
    return concatenate(tracer, np.concatenate, parts, axis=0, **kwargs)


def column_stack(tracer, fn, tup):
    parts = [p.reshape((p.size, 1)) if p.ndim < 2 else p
             for p in _stack_parts(tracer, tup, "np.column_stack")]
    return concatenate(tracer, np.concatenate, parts, axis=1)


def append(tracer, fn, arr, values, axis=None):
    a, v = as_lazy(tracer, arr), as_lazy(tracer, values)
    if axis is None:
        a, v, axis = a.ravel(), v.ravel(), 0
    return concatenate(tracer, np.concatenate, [a, v], axis=axis)


def insert(tracer, fn, arr, obj, values, axis=None):
    """np.insert of values before one index of a 1-d array (or the flattened array):
    the values cast to arr's dtype as NumPy casts them, joined between two slices."""
    x = as_lazy(tracer, arr)
    if axis is None:
        x = x.ravel()
    elif x.ndim != 1 or axis not in (0, -1):
        raise Unsupported("unsupported", "np.insert along an axis of an n-d array")
    if not isinstance(obj, (int, np.integer)) or isinstance(obj, bool):
        raise Unsupported("unsupported", "np.insert at several indexes")
    n = x.shape[0]
    index = int(obj) + n if obj < 0 else int(obj)
    if not 0 <= index <= n:
        raise Unsupported("error", f"index {obj} is out of bounds for axis 0 with size {n}")
    v = as_lazy(tracer, values)
    if v.ndim > 1:
        raise Unsupported("unsupported", "np.insert of n-d values")
    v = v.reshape((v.size,)).astype(x.dtype, copy=False)   # a view, then a cast if any
    return concatenate(tracer, np.concatenate, [x[:index], v, x[index:]], axis=0)


def flip(tracer, fn, m, axis=None):
    x = as_lazy(tracer, m)
    if axis is None:
        axes = range(x.ndim)
    else:
        axes = axis if isinstance(axis, (tuple, list)) else (axis,)
        try:
            axes = [operator.index(a) for a in axes]
        except TypeError as e:
            raise Unsupported("error", f"np.flip: {e}")
        if any(not -x.ndim <= a < x.ndim for a in axes):
            raise Unsupported("error", f"np.flip: axis out of bounds for a {x.ndim}-d array")
    key = [slice(None)] * x.ndim
    for a in axes:
        key[a % x.ndim] = slice(None, None, -1)
    return x[tuple(key)]


def flip_one(axis, least):
    def rule(tracer, fn, m):
        x = as_lazy(tracer, m)
        if x.ndim < least:
            raise Unsupported("error", f"{fn.__name__}: input must be >= {least}-d")
        return flip(tracer, np.flip, x, axis)
    return rule


def diff(tracer, fn, a, n=1, axis=-1, prepend=_NOVALUE, append=_NOVALUE):
    """As NumPy writes it: the prepended and appended values joined on, then n times
    a[1:] - a[:-1] along the axis (not_equal for booleans); n = 0 is `a` itself."""
    x = as_lazy(tracer, a)
    if type(n) is not int or n < 0:
        raise Unsupported("error", f"np.diff: order must be non-negative but got {n!r}")
    if n == 0:
        return x
    if x.ndim == 0:
        raise Unsupported("error", "np.diff requires input that is at least one dimensional")
    try:
        d = operator.index(axis)
    except TypeError as e:
        raise Unsupported("error", f"np.diff: {e}")
    if not -x.ndim <= d < x.ndim:
        raise Unsupported("error", f"np.diff: axis {axis} is out of bounds")
    d %= x.ndim
    parts = []
    for extra in (prepend, append):
        if extra is _NOVALUE:
            parts.append(None)
            continue
        e = as_lazy(tracer, extra)
        if e.ndim == 0:
            e = np.broadcast_to(e, x.shape[:d] + (1,) + x.shape[d + 1:])
        parts.append(e)
    if parts[0] is not None or parts[1] is not None:
        x = concatenate(tracer, np.concatenate,
                        [p for p in (parts[0], x, parts[1]) if p is not None], axis=d)
    op = np.not_equal if x.dtype == np.bool_ else np.subtract
    for _ in range(n):
        m = x.shape[d]
        x = op(x[_axis_slices(x.ndim, d, slice(1, None))],
               x[_axis_slices(x.ndim, d, slice(None, max(m - 1, 0)))])
    return x


def _k(k, fname):
    try:
        return operator.index(k)
    except TypeError as e:
        raise Unsupported("error", f"{fname}: {e}")


def _triangle(keep_upper):
    """np.triu / np.tril: a select on the index (j - i against k) with a zero of the
    array's own dtype, over the last two axes."""
    def rule(tracer, fn, m, k=0):
        x = as_lazy(tracer, m)
        k = _k(k, fn.__name__)
        if x.ndim == 0:
            raise Unsupported("error", f"{fn.__name__} of a 0-d array")
        if x.ndim == 1:   # NumPy broadcasts a 1-d array to a square first
            x = np.broadcast_to(x[None, :], (x.size, x.size))
        n, c = x.shape[-2:]
        rows = np.arange(n)[:, None] + k
        cols = np.arange(c)[None, :]
        keep = tracer.made_here((cols >= rows) if keep_upper else (cols <= rows))
        return np.where(keep, x, tracer.made_here(np.zeros((), x.dtype)))
    return rule


def diagonal(tracer, fn, a, offset=0, axis1=0, axis2=1):
    x = as_lazy(tracer, a)
    if x.ndim < 2:
        raise Unsupported("error", "diag requires an array of at least two dimensions")
    return pure_view(tracer, x, np.diagonal, (_k(offset, "np.diagonal"), axis1, axis2), None,
                     "diagonal")


def diag(tracer, fn, v, k=0):
    """A 2-d array's diagonal (a view), or a square array with v on its k-th diagonal:
    v (padded to the side) where j - i == k, zeros elsewhere."""
    x = as_lazy(tracer, v)
    k = _k(k, "np.diag")
    if x.ndim == 2:
        return diagonal(tracer, np.diagonal, x, k)
    if x.ndim != 1:
        raise Unsupported("error", "Input must be 1- or 2-d.")
    n = x.shape[0] + abs(k)
    line = pad(tracer, np.pad, x, (0, abs(k))) if k else x
    along = line[:, None] if k >= 0 else line[None, :]
    # the diagonal as a traced np.eye: computed inside the kernel, where a (n, n) mask
    # made in NumPy was a leaf hashed and passed on every call (a third of a small
    # Jacobi solve's time)
    on = eye(tracer, np.eye, n, n, k, dtype=bool)
    return np.where(on, along, tracer.made_here(np.zeros((), x.dtype)))


def diagflat(tracer, fn, v, k=0):
    return diag(tracer, np.diag, as_lazy(tracer, v).ravel(), k)


_SELECT = inspect.signature(np.select)


def select(tracer, fn, condlist, choicelist, default=0):
    """As NumPy selects: the choices and the default cast to their common dtype, then
    from the last condition to the first, the choice where it holds, else what the
    later ones left: a chain of np.where, fused into one kernel. The dtype, and NumPy's
    refusals (conditions not boolean, a default the dtype cannot hold), come from
    np.select itself on stand-ins of the traced arrays and the constants as given."""
    if not isinstance(condlist, (list, tuple)) or not isinstance(choicelist, (list, tuple)):
        raise Unsupported("unsupported", "np.select of conditions not in a list")
    if len(condlist) != len(choicelist) or not condlist:
        raise Unsupported("error", "np.select: as many conditions as choices, at least one")
    values = list(choicelist) + [default]
    if not NUMPY2 and any(type(v) in (_la.LazyArray, np.ndarray) and v.ndim == 0
                          for v in values):   # the probe's stand-ins have other values
        raise Unsupported("value_dtype", "np.select of a 0-d choice under NumPy 1.x")
    conds = [c if type(c) is _la.LazyArray else _constant(c) for c in condlist]
    if any(c.dtype != np.bool_ for c in conds):
        raise Unsupported("error", "np.select: conditions must be boolean")
    given = {"condlist": list(condlist), "choicelist": list(choicelist), "default": default}
    lazies = [v for v in conds + values if type(v) is _la.LazyArray]
    dtype = np.asarray(_quiet_probe(fn, _SELECT, given, lazies)).dtype
    parts = [v.astype(dtype, copy=False) if type(v) is _la.LazyArray else _constant(v, dtype)
             for v in values]
    try:
        np.broadcast_shapes(*[np.shape(x) for x in conds + parts])
    except ValueError as e:
        raise Unsupported("error", f"np.select: {e}")
    out = parts.pop()
    for cond, choice in zip(conds[::-1], parts[::-1]):
        out = np.where(cond, choice, out)
    return out


def _constant(v, dtype=None):
    """A constant operand as NumPy casts it (unsafely, as np.full and astype do); a
    NumPy scalar where it is 0-d: a constant of the graph, not an array leaf (a leaf
    that is no argument stops a loop body from running again without its Python)."""
    a = _nb.asarray(v) if dtype is None else _nb.asarray(v).astype(dtype)
    return a[()] if a.ndim == 0 else a


def count_nonzero(tracer, fn, a, axis=None, *, keepdims=False):
    """np.count_nonzero as NumPy counts: a sum of a != 0 in intp. With no axis NumPy 1.x
    returns a Python int: the graph computes it, as a lazy Python number in [0, a.size]
    (trace/python_numbers.py); NumPy 2 an intp."""
    lz = as_lazy(tracer, a)
    count = np.sum(lz != 0, axis=axis, keepdims=keepdims, dtype=np.intp)
    if axis is None and not keepdims and not NUMPY2:
        return lazy_int(tracer, count, 0, lz.size)
    return count


def array_equal(tracer, fn, a1, a2, equal_nan=False):
    """np.array_equal as NumPy decides it: False for other shapes (known while tracing),
    else a Python bool of all(a1 == a2), NaNs in the same places equal when asked. The
    graph computes it: a convergence test `if np.array_equal(new, old): break` is the
    exit test of a loop compiled once, not a break of its own."""
    x, y = as_lazy(tracer, a1), as_lazy(tracer, a2)
    if x.shape != y.shape:
        return False
    same = x == y
    if equal_nan:
        same = same | (np.isnan(x) & np.isnan(y))
    return lazy_bool(tracer, np.all(same))


def array_equiv(tracer, fn, a1, a2):
    """np.array_equiv: False where the shapes do not broadcast, else all(a1 == a2)."""
    x, y = as_lazy(tracer, a1), as_lazy(tracer, a2)
    try:
        np.broadcast_shapes(x.shape, y.shape)
    except ValueError:
        return False
    return lazy_bool(tracer, np.all(x == y))


def allclose(tracer, fn, a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """np.allclose: a Python bool of all(np.isclose(...)), computed by the graph."""
    return lazy_bool(tracer, np.all(np.isclose(as_lazy(tracer, a), as_lazy(tracer, b),
                                               rtol=rtol, atol=atol, equal_nan=equal_nan)))


def nancumulative(tracer, fn, a, axis=None, dtype=None, out=None):
    """np.nancumsum / np.nancumprod as NumPy computes them: the NaNs of a float array
    replaced by the identity (0, 1), other dtypes as they are, then np.cumsum /
    np.cumprod; the scan then runs in a kernel with the replacement fused into it."""
    if out is not None:
        raise Unsupported("unsupported", f"np.{fn.__name__}(..., out=)")
    lz = as_lazy(tracer, a)
    plain, identity = (np.cumsum, 0) if fn is np.nancumsum else (np.cumprod, 1)
    if lz.dtype.kind in "fc":
        lz = np.where(np.isnan(lz), identity, lz)
    return plain(lz, axis=axis, dtype=dtype)


def cumulative(tracer, fn, x, axis=None, dtype=None, out=None, include_initial=False):
    """np.cumulative_sum / np.cumulative_prod (NumPy 2.1): np.cumsum / np.cumprod along
    the axis (given for arrays of more than one dimension, as NumPy requires), after
    the identity (0, 1) along it where include_initial."""
    if out is not None:
        raise Unsupported("unsupported", f"np.{fn.__name__}(..., out=)")
    lz = as_lazy(tracer, x)
    plain, first = (np.cumsum, _nb.zeros) if fn.__name__ == "cumulative_sum" else \
        (np.cumprod, _nb.ones)
    if axis is None:
        if lz.ndim > 1:
            raise Unsupported("error", f"np.{fn.__name__}: an axis is required")
        r, ax = plain(lz, dtype=dtype), 0
    else:
        r = plain(lz, axis=axis, dtype=dtype)
        ax = operator.index(axis) % lz.ndim
    if not include_initial:
        return r
    return np.concatenate((first(r.shape[:ax] + (1,) + r.shape[ax + 1:], r.dtype), r), axis=ax)


TABLE = {
    np.count_nonzero: count_nonzero,
    np.array_equal: array_equal,
    np.array_equiv: array_equiv,
    np.allclose: allclose,
    np.nancumsum: nancumulative,
    np.nancumprod: nancumulative,
    np.select: select,
    np.roll: roll,
    np.triu: _triangle(True),
    np.tril: _triangle(False),
    np.diag: diag,
    np.diagflat: diagflat,
    np.diagonal: diagonal,
    np.diff: diff,
    np.pad: pad,
    np.hstack: hstack,
    np.vstack: vstack,
    np.column_stack: column_stack,
    np.append: append,
    np.insert: insert,
    np.flip: flip,
    np.fliplr: flip_one(1, 2),
    np.flipud: flip_one(0, 1),
}
TABLE.update({fn: cumulative for fn in (getattr(np, "cumulative_sum", None),
                                        getattr(np, "cumulative_prod", None)) if fn is not None})
