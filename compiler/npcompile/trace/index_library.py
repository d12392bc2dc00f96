"""NumPy functions that make or read integer indices, as steps of the graph: np.bincount,
np.unravel_index, np.ravel_multi_index, np.digitize, np.isin, np.lexsort, np.repeat,
np.tile, np.triu_indices_from and kin. NumPy's own function runs as the step (same
values, same errors at run time). np.nonzero and its kin are as long as the data make
them: a lazy selection for a 1-d array (counted), elsewhere a break, reported as one.

np.bincount's length is max(x) + 1 or minlength, whichever is larger: known before the
run only where the trace can bound x below minlength from how x was made
(value_bounds.py: labels from an argmin, bins from np.clip, uint8 pixels). Elsewhere it
is a graph break: NumPy's call on the values, the graph going on after it."""
import operator

import numpy as np

from ..graph import calls
from ..graph.node import Ref
from . import lazy_array as _la
from .library_rules import _axis, _dtype_of, _shape, declare, library_call
from .operands import Unsupported, as_lazy, broadcast
from .masked_select import UNIQUE_REASON, nonzero_indices, unique_counts, unique_values
from .value_bounds import int_bounds
from .view_rules import gather


def _index(v, what):
    try:
        return operator.index(v)
    except TypeError:
        raise Unsupported("unsupported", f"{what} {v!r}")


def _bounds(tracer, v, below=None):
    """v as a lazy array, and bounds on its values from how it was made; where those do
    not keep it below `below`, from the values of the concrete arrays it was made of."""
    lz = as_lazy(tracer, v)
    got = int_bounds(lz._n)
    if below is not None and got is not None and (got[0] < 0 or got[1] >= below):
        got = int_bounds(lz._n, tracer=tracer)
    return lz, got


def bincount(tracer, fn, x, weights=None, minlength=0):
    n = _index(minlength, "np.bincount: minlength")
    lx, bounds = _bounds(tracer, x, n)
    if lx.ndim != 1 or n < 0 or lx.dtype.kind not in "biu":
        raise Unsupported("error", "np.bincount: arguments NumPy refuses")
    inputs = [lx]
    if weights is not None:
        lw = as_lazy(tracer, weights)
        if lw.shape != lx.shape:
            raise Unsupported("error", "np.bincount: the weights and list don't have the "
                                       "same length.")
        inputs.append(lw)
    if lx.size and (bounds is None or bounds[1] >= n):
        raise Unsupported("data_shape", "np.bincount: its length is max(x) + 1, known from "
                                        "the data only (minlength= above every value that "
                                        "x can hold, e.g. after np.clip, keeps it in the graph)")
    dt = _dtype_of(fn, inputs, {"minlength": n})
    r = tracer.make(calls.bincount_of_length, (Ref(0), Ref(1) if weights is not None else None,
                                               n), None, tuple(lz._n for lz in inputs), dt,
                    (n,), "bincount")
    if lx.size and bounds[0] < 0:
        tracer.must_run.append(r)   # a negative value is NumPy's ValueError, used or not
    return r


def unravel_index(tracer, fn, indices, shape=None, order="C", **kwargs):
    """One index array per dimension of `shape`, each of indices' shape (NumPy scalars
    for one index)."""
    if kwargs or shape is None or order not in ("C", "F"):
        raise Unsupported("unsupported", "np.unravel_index with these arguments")
    dims = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    dims = tuple(_index(d, "np.unravel_index: a dimension") for d in dims)
    li, bounds = _bounds(tracer, indices)
    if li.dtype.kind not in "iu" or any(d < 0 for d in dims):
        raise Unsupported("error", "np.unravel_index: arguments NumPy refuses")
    size = int(np.prod(dims))
    items = tracer.make_multi(fn, (Ref(0), dims), {"order": order}, (li._n,),
                              [np.dtype(np.intp)] * len(dims), li.shape, "unravel_index",
                              scalar=True)
    if items and (bounds is None or bounds[0] < 0 or bounds[1] >= size):
        tracer.must_run.append(items[0])   # out of range: NumPy's ValueError, used or not
    return items


def _triangle_indices(make):
    """np.triu_indices_from / tril_indices_from: index arrays that follow from the
    array's shape alone, made now by NumPy as constants (as np.triu_indices(n) is,
    having no array argument)."""
    def rule(tracer, fn, arr, k=0):
        lz = as_lazy(tracer, arr)
        if lz.ndim != 2:
            raise Unsupported("error", "input array must be 2-d")
        k = _index(k, f"np.{fn.__name__}: k")
        with tracer.suspended():
            got = make(lz.shape[0], k, lz.shape[1])
        return tuple(tracer.made_here(g) for g in got)
    return rule


def diag_indices_from(tracer, fn, arr):
    lz = as_lazy(tracer, arr)
    if lz.ndim < 2 or len(set(lz.shape)) != 1:
        raise Unsupported("error", "np.diag_indices_from: an array of at least 2 "
                                   "dimensions, all of one length")
    with tracer.suspended():
        got = np.diag_indices(lz.shape[0], lz.ndim)
    return tuple(tracer.made_here(g) for g in got)


def ravel_multi_index(tracer, fn, multi_index, dims, mode="raise", order="C"):
    """The flat index of each tuple of indices, of their broadcast shape (a NumPy scalar
    for one); an index out of range is NumPy's ValueError, used or not."""
    if not isinstance(multi_index, (tuple, list)) or not isinstance(dims, (tuple, list)) or \
            mode not in ("raise", "wrap", "clip") or order not in ("C", "F"):
        raise Unsupported("unsupported", "np.ravel_multi_index with these arguments")
    dims = tuple(_index(d, "np.ravel_multi_index: a dimension") for d in dims)
    if len(multi_index) != len(dims):
        raise Unsupported("error", "np.ravel_multi_index: one index per dimension")
    parts = [_bounds(tracer, m) for m in multi_index]
    if any(lz.dtype.kind not in "iu" for lz, _ in parts):
        raise Unsupported("error", "only int indices permitted")
    shape = broadcast([lz.shape for lz, _ in parts])
    r = tracer.make(fn, (tuple(Ref(i) for i in range(len(parts))), dims),
                    {"mode": mode, "order": order}, tuple(lz._n for lz, _ in parts),
                    np.dtype(np.intp), shape, "ravel_multi_index", scalar=not shape)
    if mode == "raise" and any(b is None or b[0] < 0 or b[1] >= d
                               for (_, b), d in zip(parts, dims)):
        tracer.must_run.append(r)
    return r


def _repeat(b):
    shape, reps, axis = _shape(b, "a"), b.get("repeats"), b.get("axis")
    if type(reps) is _la.LazyArray:
        raise Unsupported("data_shape", "np.repeat by traced counts: its length is their sum")
    counts = np.asarray(reps)
    if counts.dtype.kind not in "iu" or counts.ndim > 1:
        raise Unsupported("error", "np.repeat: repeats NumPy refuses")
    n = int(np.prod(shape)) if axis is None else shape[_axis(axis, len(shape), "repeat")]
    if counts.size not in (1, n) or (counts < 0).any():
        raise Unsupported("error", "np.repeat: repeats NumPy refuses")
    total = int(counts.sum()) if counts.size == n and counts.ndim == 1 else \
        n * int(counts.reshape(-1)[0])
    if axis is None:
        return (total,)
    ax = _axis(axis, len(shape), "repeat")
    return shape[:ax] + (total,) + shape[ax + 1:]


def _tile(b):
    shape, reps = _shape(b, "A"), b.get("reps")
    reps = (reps,) if isinstance(reps, (int, np.integer)) else tuple(reps)
    reps = tuple(_index(r, "np.tile: reps") for r in reps)
    if any(r < 0 for r in reps):
        raise Unsupported("error", "negative dimensions are not allowed")
    d = max(len(reps), len(shape))
    shape = (1,) * (d - len(shape)) + shape
    reps = (1,) * (d - len(reps)) + reps
    return tuple(s * r for s, r in zip(shape, reps))


def _lexsort(b):
    keys = b.get("keys")
    if isinstance(keys, (list, tuple)):
        shapes = {np.shape(k) for k in keys}
        if len(shapes) != 1:
            raise Unsupported("error", "all keys need to be the same shape")
        return shapes.pop()
    shape = _shape(b, "keys")
    if len(shape) < 2:
        raise Unsupported("unsupported", "np.lexsort of one key array")
    return shape[1:]


def _same(name):
    return lambda b: _shape(b, name)


# C functions of NumPy 1.x carry no signature: theirs, as NumPy 2 declares them
def _lexsort_params(keys, axis=-1):
    pass


def counted(tracer, fn, *args, **kwargs):
    """np.nonzero, np.flatnonzero, np.argwhere (np.where(m) is function_rules.where): as
    long as the count of nonzeros, known from the data only. The indices of a 1-d
    array's nonzeros are arange(n) selected by a != 0 (masked_select.py): lazy, so that
    their count and reductions are graph values and a returned one is made compact as
    the graph's last step. Elsewhere NumPy's call, a break that says so: the graph
    before it runs, the one after it starts from its result."""
    if fn in _INDICES_OF_NONZERO and len(args) == 1 and not kwargs:
        got = nonzero_indices(tracer, args[0], flat=fn is np.flatnonzero)
        if got is not None:
            return got if fn is np.flatnonzero else (got,)
    raise Unsupported("data_shape", f"np.{fn.__name__}: its length is the number of "
                                    f"nonzero elements, known from the data only")


def unique(tracer, fn, ar, *args, **kwargs):
    """np.unique(ar), its values alone, or (values, counts) with return_counts: lazy
    selections of ar sorted (masked_select.py), so that their count and reductions are
    graph values and a returned one is made compact as the graph's last step. With
    return_index or return_inverse, an axis, equal_nan=False or another dtype, NumPy's
    call: a break that says so."""
    counts = kwargs.get("return_counts", False)
    # the options at their defaults change nothing
    others = [k for k, v in kwargs.items() if k != "return_counts" and not (
        (k in ("return_index", "return_inverse") and v is False) or
        (k == "axis" and v is None) or (k == "equal_nan" and v is True))]
    if not args and not others and (counts is True or counts is False):
        got = unique_values(tracer, ar)
        if got is not None and not counts:
            return got
        if got is not None:
            n = unique_counts(tracer, got)
            if n is not None:
                return got, n
    raise Unsupported("data_shape", UNIQUE_REASON)


SHAPES = {np.digitize: _same("x"), np.isin: _same("element"), np.repeat: _repeat,
          np.tile: _tile, np.lexsort: _lexsort}
SIGNATURES = {np.lexsort: _lexsort_params}
_INDICES_OF_NONZERO = (np.nonzero, np.flatnonzero)


def take(tracer, fn, a, indices, axis=None, out=None, mode="raise"):
    """np.take with an integer index array, NumPy's mode='raise': the gather a[..., i]
    along the axis (of a raveled where axis is None), which kernels compute
    (fusion/expr.py _gather, its IndexError NumPy's at run time); anything else (out=,
    clip and wrap modes, a scalar index) NumPy's own step."""
    index = type(indices) in (np.ndarray, _la.LazyArray) and indices.ndim > 0 and \
        indices.dtype.kind in "iu"
    if out is not None or mode != "raise" or not index:
        return library_call(tracer, fn, a, indices, axis=axis, out=out, mode=mode)
    x = as_lazy(tracer, a)
    if axis is None:
        x, axis = x.ravel(), 0
    else:
        axis = _axis(axis, x.ndim, "take")
    return gather(tracer, x, (slice(None),) * axis + (indices,))


TABLE = declare(SHAPES, SIGNATURES)
TABLE[np.take] = take
TABLE.update({np.triu_indices_from: _triangle_indices(np.triu_indices),
              np.tril_indices_from: _triangle_indices(np.tril_indices),
              np.diag_indices_from: diag_indices_from})
TABLE.update({np.bincount: bincount, np.unravel_index: unravel_index,
              np.ravel_multi_index: ravel_multi_index, np.nonzero: counted,
              np.flatnonzero: counted, np.argwhere: counted, np.unique: unique})
