"""NumPy functions whose result shape follows from their inputs' shapes, recorded as
NumPy steps inside the graph (like matmul) rather than breaking it: np.cumsum and
np.cumprod, ufunc.accumulate, np.linalg.solve and np.linalg.inv. Each runs as NumPy
itself at run time (same values, same errors); what fuses around it stays in the graph.
(The scans among them, ops.SCANS, are computed by the CPU kernels instead: fusion/expr.py.)
The result dtype is NumPy's, from the call on one-element stand-ins."""
import inspect
import operator

import numpy as np

from ..graph.node import Ref
from .. import np_base as _nb
from ..ops import LIBRARY_REDUCTIONS, QUANTILES
from . import lazy_array as _la
from .operands import NUMPY2, Unsupported, _quiet, as_lazy, broadcast


def _dtype_of(fn, lzs, kw):
    """NumPy's result dtype for these operands, from one-element stand-ins of their ranks
    (a 1x1 matrix of ones is not singular)."""
    try:
        return np.dtype(_quiet(fn, *[_nb.ones((1,) * max(lz.ndim, 1), lz.dtype) for lz in lzs],
                               **kw).dtype)
    except Exception as e:
        raise Unsupported("error", f"{getattr(fn, '__name__', fn)}: {e}")


def _axis(axis, ndim, name):
    if type(axis) is not int or not -ndim <= axis < ndim:
        raise Unsupported("error", f"np.{name}: axis {axis!r} out of range")
    return axis % ndim


def _matmul_shape(sa, sb, name):
    if not sa or not sb:
        raise Unsupported("error", f"{name}: operands must not be 0-d")
    a2 = (1,) + sa if len(sa) == 1 else sa
    b2 = sb + (1,) if len(sb) == 1 else sb
    if a2[-1] != b2[-2]:
        raise Unsupported("error", f"{name}: mismatch in core dimension")
    batch = broadcast([a2[:-2], b2[:-2]])
    shape = batch + (a2[-2], b2[-1])
    if len(sa) == 1:
        shape = shape[:-2] + shape[-1:]
    if len(sb) == 1:
        shape = shape[:-1]
    return shape


def matmul(tracer, a, b, fn=np.matmul, name="matmul"):
    la, lb = as_lazy(tracer, a), as_lazy(tracer, b)
    shape = _matmul_shape(la.shape, lb.shape, name)
    try:
        r = _quiet(fn, _nb.ones((1,) * la.ndim, la.dtype), _nb.ones((1,) * lb.ndim, lb.dtype))
    except Exception as e:
        raise Unsupported("error", f"{name}: {e}")
    return tracer.make(fn, (Ref(0), Ref(1)), None, (la._n, lb._n), np.dtype(r.dtype), shape, name,
                       scalar=len(shape) == 0)


def _out_of(out, shape, dt, name):
    """The traced array an `out=` names, where NumPy's result fits it as it is (its shape
    and dtype: NumPy casts into another dtype after or before the scan, depending on the
    call); else the call is NumPy's."""
    if type(out) is tuple and len(out) == 1:     # ufunc methods get out= as a tuple
        out = out[0]
    if type(out) is not _la.LazyArray or out.shape != shape or out.dtype != dt:
        raise Unsupported("unsupported", f"np.{name}(..., out=) of another shape or dtype")
    return out


def _written_into(out, r):
    """NumPy writes the result into out= and returns out itself (a write of the whole
    array: the kernel computing the result writes out's next version)."""
    if out is None:
        return r
    out[...] = r
    return out


def cumulative(tracer, fn, a, axis=None, dtype=None, out=None):
    """np.cumsum / np.cumprod: a's shape along an axis, flattened without one."""
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
    out = out if out is None else _out_of(out, shape, dt, fn.__name__)
    return _written_into(out, tracer.make(fn, (Ref(0),), kw or None, (lz._n,), dt, shape,
                                          fn.__name__))


def accumulate(tracer, ufunc, a, axis=0, dtype=None, out=None):
    """ufunc.accumulate (np.maximum.accumulate, np.add.accumulate...): a's shape."""
    if ufunc.nin != 2 or ufunc.nout != 1:
        raise Unsupported("unsupported", f"np.{ufunc.__name__}.accumulate")
    lz = as_lazy(tracer, a)
    if lz.ndim == 0:
        raise Unsupported("error", "cannot accumulate on a scalar")
    kw = {"axis": _axis(axis, lz.ndim, f"{ufunc.__name__}.accumulate")}
    if dtype is not None:
        kw["dtype"] = dtype
    dt = _dtype_of(ufunc.accumulate, [lz], {k: v for k, v in kw.items() if k == "dtype"})
    name = f"{ufunc.__name__}.accumulate"
    out = out if out is None else _out_of(out, lz.shape, dt, name)
    return _written_into(out, tracer.make(ufunc.accumulate, (Ref(0),), kw, (lz._n,), dt,
                                          lz.shape, name))


def reduceat(tracer, ufunc, a, indices, axis=0, dtype=None, out=None):
    """ufunc.reduceat (np.add.reduceat(x, starts): segment sums): a's shape with the
    axis as long as the indices. Indices known now are checked now (NumPy's IndexError
    at the call); traced ones are computed even if unused, as NumPy raises either way."""
    if out is not None or ufunc.nin != 2 or ufunc.nout != 1:
        raise Unsupported("unsupported", f"np.{ufunc.__name__}.reduceat")
    la, li = as_lazy(tracer, a), as_lazy(tracer, indices)
    if la.ndim == 0 or li.ndim != 1 or li.dtype.kind not in "iu":
        raise Unsupported("error", f"np.{ufunc.__name__}.reduceat: arguments NumPy refuses")
    ax = _axis(axis, la.ndim, f"{ufunc.__name__}.reduceat")
    n = la.shape[ax]
    if li._n.is_leaf and li.size and (li._n.value.min() < 0 or li._n.value.max() >= n):
        raise Unsupported("error", f"np.{ufunc.__name__}.reduceat: index out of bounds")
    kw = {"axis": ax} if dtype is None else {"axis": ax, "dtype": dtype}
    try:
        dt = np.dtype(_quiet(ufunc.reduceat, _nb.ones((1,) * la.ndim, la.dtype),
                             _nb.zeros(1, np.intp), **kw).dtype)
    except Exception as e:
        raise Unsupported("error", f"np.{ufunc.__name__}.reduceat: {e}")
    shape = la.shape[:ax] + li.shape + la.shape[ax + 1:]
    r = tracer.make(ufunc.reduceat, (Ref(0), Ref(1)), kw, (la._n, li._n), dt, shape,
                    f"{ufunc.__name__}.reduceat")
    if not li._n.is_leaf:
        tracer.must_run.append(r)
    return r


def solve(tracer, fn, a, b):
    """np.linalg.solve(a, b): a square matrix or a stack of them; b right-hand sides, a
    vector (NumPy 2: b of one dimension; NumPy 1.x: b of one dimension less than a) or
    matrices, the stacks' leading axes broadcast."""
    la, lb = as_lazy(tracer, a), as_lazy(tracer, b)
    if la.ndim < 2 or la.shape[-1] != la.shape[-2] or lb.ndim < 1:
        raise Unsupported("error", "np.linalg.solve: a must be square matrices")
    m, batch = la.shape[-1], la.shape[:-2]
    vector = lb.ndim == 1 if NUMPY2 else lb.ndim == la.ndim - 1
    core = lb.shape[-1:] if vector else lb.shape[-2:]
    if core[0] != m or len(core) != (1 if vector else 2):
        raise Unsupported("error", "np.linalg.solve: b does not match a's size")
    shape = broadcast([batch, lb.shape[:-len(core)]]) + ((m,) if vector else (m, core[1]))
    return tracer.make(fn, (Ref(0), Ref(1)), None, (la._n, lb._n),
                       _dtype_of(fn, [la, lb], {}), shape, "solve")


def inv(tracer, fn, a):
    """np.linalg.inv of a square matrix or a stack of them."""
    lz = as_lazy(tracer, a)
    if lz.ndim < 2 or lz.shape[-1] != lz.shape[-2]:
        raise Unsupported("error", "np.linalg.inv: a must be square matrices")
    return tracer.make(fn, (Ref(0),), None, (lz._n,), _dtype_of(fn, [lz], {}), lz.shape, "inv")


# ----- library calls declared by their result shapes ----------------------------------
# Each entry: the function, and how its result's shape (or shapes, for several results)
# follows from its bound arguments' shapes. The dtypes and whether a 0-d result is a
# NumPy scalar come from NumPy itself, on stand-ins of one element. Only functions
# whose result shapes never depend on the values are here (np.unique, np.bincount,
# x[mask] are not). The call runs as NumPy at run time: same values, same errors.

def _shape(b, name):
    v = b.get(name)
    return tuple(v.shape) if hasattr(v, "shape") else np.shape(v)


def _reduced(b, a="a", keep="keepdims"):
    shape, axis = _shape(b, a), b.get("axis")
    if axis is None:
        axes = set(range(len(shape)))
    else:
        axes = {_axis(x, len(shape), "reduction") for x in
                (axis if isinstance(axis, tuple) else (axis,))}
    if b.get(keep) is True:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def _along(b):
    """np.sort: a's shape, flattened when axis is None."""
    shape = _shape(b, "a")
    if not shape and b.get("axis") is not None:
        _axis(b.get("axis"), 0, "sort")     # NumPy's AxisError
    return (int(np.prod(shape)),) if b.get("axis") is None else shape


def _argsort(b):
    """np.argsort: as np.sort, but a 0-d array's order is [0] whatever the axis
    (fuzzer seed 9300796: a 0-d result made t1[::-1] an IndexError)."""
    shape = _shape(b, "a")
    return (1,) if not shape else _along(b)


def _partitioned(b):
    """np.partition / np.argpartition: as np.sort, once NumPy's checks of kth pass (a
    stand-in's axis is shorter than the array's); which index lands where is NumPy's
    selection algorithm's, run as the step."""
    shape, kth = _shape(b, "a"), b.get("kth")
    if not shape or b.get("order") is not None or b.get("kind") != "introselect" or \
            not isinstance(kth, (int, np.integer, list, tuple, np.ndarray)) or \
            isinstance(kth, bool) or np.asarray(kth).dtype.kind not in "iu":
        raise Unsupported("unsupported", "np.partition of a 0-d array, or with these options")
    out = _along(b)
    n = out[-1] if b.get("axis") is None else out[_axis(b.get("axis"), len(out), "partition")]
    k = np.asarray(kth)
    if k.ndim > 1 or np.any(k < -n) or np.any(k >= n):
        raise Unsupported("error", f"kth(={kth!r}) out of bounds ({n})")
    return out


def _first_kth(b, given):
    """np.partition's probe: kth was checked against the real axis (_partitioned); on
    a stand-in's shorter axis it would be out of bounds (knn's argpartition(d2, 7, axis=1)
    broke on its 3-element stand-in), and 0 selects the same dtype."""
    return dict(given, kth=0)


def _indices_checked(b, given):
    """np.take's probe: constant indices checked against the real axis now (NumPy
    raises at the call, used or not), then zeros of their shape, valid on any
    stand-in that is not empty."""
    ind = given.get("indices")
    if type(ind) is _la.LazyArray or b.get("mode", "raise") != "raise":
        return given
    ind = np.asarray(ind)
    if ind.dtype.kind not in "iu":
        return given            # NumPy's own error, from the probe
    shape, axis = _shape(b, "a"), b.get("axis")
    n = int(np.prod(shape)) if axis is None else shape[_axis(axis, len(shape), "take")]
    if ind.size and (ind.min() < -n or ind.max() >= n):
        raise Unsupported("error", f"np.take: index out of bounds for size {n}")
    return dict(given, indices=np.zeros(ind.shape, ind.dtype))


def _eig_of_complex(b):
    """np.linalg.eigvals / eig of a real matrix are real or complex as the values come
    out (complex eigenvalues): only a complex matrix's dtype is known before the run."""
    a = b.get("a")
    if a.dtype.kind != "c":
        raise Unsupported("unsupported", "eigenvalues of a real matrix: their dtype (real "
                                         "or complex) depends on the values")
    shape = _shape(b, "a")
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise Unsupported("error", "np.linalg.eig needs square matrices")
    return shape[:-1]


def _quantiles(b):
    return _shape(b, "q") + _reduced(b)


def _take(b):
    a, ind, axis = _shape(b, "a"), _shape(b, "indices"), b.get("axis")
    if axis is None:
        return ind
    axis = _axis(axis, len(a), "take")
    return a[:axis] + ind + a[axis + 1:]


def _einsum(b):
    subs, *ops = b.get("operands")
    if not isinstance(subs, str) or "." in subs:
        raise Unsupported("unsupported", "np.einsum in the interleaved form, or with '...'")
    subs = subs.replace(" ", "")
    if "->" in subs:
        ins, out = subs.split("->")
    else:       # implicit: the letters seen once, in alphabetical order
        ins = subs
        out = "".join(sorted(c for c in set(subs) if c.isalpha() and subs.count(c) == 1))
    if len(ops) == 1 and set(ins) == set(out):
        # nothing summed: a transpose or diagonal, which NumPy returns as a view the
        # caller may write through (`np.einsum('ii->i', A)[:] = 0` sets A's diagonal);
        # computed as a new array, such a write was lost
        raise Unsupported("unsupported", "np.einsum of one operand that sums nothing (a "
                                         "view of it in NumPy)")
    sizes = {}
    for letters, op in zip(ins.split(","), ops):
        shape = np.shape(op)
        if len(letters) != len(shape):
            raise Unsupported("error", "np.einsum: subscripts do not match the operands")
        for c, d in zip(letters, shape):
            if sizes.setdefault(c, d) != d and d != 1:
                raise Unsupported("error", f"np.einsum: sizes of {c!r} differ")
    return tuple(sizes[c] for c in out)


def _tensordot(b):
    a, c, axes = _shape(b, "a"), _shape(b, "b"), b.get("axes")
    if isinstance(axes, int):
        return a[:len(a) - axes] + c[axes:]
    xa, xb = ([x] if isinstance(x, int) else list(x) for x in axes)
    return tuple(d for i, d in enumerate(a) if i not in {k % len(a) for k in xa}) + \
        tuple(d for i, d in enumerate(c) if i not in {k % len(c) for k in xb})


def _kron(b):
    a, c = _shape(b, "a"), _shape(b, "b")
    n = max(len(a), len(c))
    a, c = (1,) * (n - len(a)) + a, (1,) * (n - len(c)) + c
    return tuple(x * y for x, y in zip(a, c))


def _meshgrid(b):
    xi = b.get("xi")
    lengths = [int(np.prod(np.shape(x))) for x in xi]
    if b.get("sparse"):
        raise Unsupported("unsupported", "np.meshgrid(sparse=True)")
    if b.get("indexing", "xy") == "xy" and len(lengths) > 1:
        lengths[0], lengths[1] = lengths[1], lengths[0]
    return [tuple(lengths)] * len(lengths)


def _histogram(b):
    bins = b.get("bins")
    if isinstance(bins, (int, np.integer)):
        return [(int(bins),), (int(bins) + 1,)]
    if isinstance(bins, str):
        raise Unsupported("unsupported", "np.histogram with bins chosen from the data")
    n = int(np.prod(np.shape(bins)))
    return [(n - 1,), (n,)]


def _histogram2d(b):
    """np.histogram2d: counts and both edges, per axis as np.histogram's bins: a count,
    or the edges; one count or edge array for both axes, or a pair."""
    bins = b.get("bins")
    if isinstance(bins, (list, tuple)) and len(bins) == 2:
        per_axis = list(bins)
    elif isinstance(bins, (int, np.integer)) or np.ndim(bins) == 1:
        per_axis = [bins, bins]
    else:
        raise Unsupported("unsupported", "np.histogram2d with these bins")
    counts, edges = [], []
    for axis in per_axis:
        (n,), (e,) = _histogram({"bins": axis})
        counts.append(n)
        edges.append((e,))
    return [tuple(counts)] + edges


def _covariance(b):
    m, y = _shape(b, "m" if "m" in b else "x"), b.get("y")
    rowvar = b.get("rowvar", True)

    def variables(shape):
        return 1 if len(shape) < 2 else (shape[0] if rowvar else shape[1])
    n = variables(m) + (variables(np.shape(y)) if y is not None else 0)
    return () if len(m) < 2 and y is None else (n, n)


def _trace(b):
    shape = _shape(b, "a")
    drop = {_axis(b.get("axis1", 0), len(shape), "trace"),
            _axis(b.get("axis2", 1), len(shape), "trace")}
    return tuple(d for i, d in enumerate(shape) if i not in drop)


# the linalg functions work on stacks of matrices: the leading axes are the stack's

def _qr(b):
    batch, (m, n) = _shape(b, "a")[:-2], _shape(b, "a")[-2:]
    k, mode = min(m, n), b.get("mode", "reduced")
    if mode == "reduced":
        return [batch + (m, k), batch + (k, n)]
    if mode == "complete":
        return [batch + (m, m), batch + (m, n)]
    raise Unsupported("unsupported", f"np.linalg.qr(mode={mode!r})")


def _svd(b):
    batch, (m, n) = _shape(b, "a")[:-2], _shape(b, "a")[-2:]
    k = min(m, n)
    if not b.get("compute_uv", True):
        return batch + (k,)
    shapes = [(m, m), (k,), (n, n)] if b.get("full_matrices", True) else [(m, k), (k,), (k, n)]
    return [batch + s for s in shapes]


def _eigh(b):
    shape = _shape(b, "a")
    return [shape[:-1], shape]


def _square_stack(b):
    """np.linalg.det, slogdet: one value per matrix of a stack of square ones (a stand-in
    of one element is square whatever the real shape: NumPy's LinAlgError, eagerly)."""
    shape = _shape(b, "a")
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise Unsupported("error", "Last 2 dimensions of the array must be square")
    return shape[:-2]


def _fft(length):
    """np.fft along one axis: a's shape with that axis's new length (length(n, m): n the
    n= argument or None, m the axis's length)."""
    def rule(b):
        shape = list(_shape(b, "a"))
        axis = _axis(b.get("axis", -1), len(shape), "fft")
        shape[axis] = length(b.get("n"), shape[axis])
        if shape[axis] < 1:
            raise Unsupported("error", f"Invalid number of FFT data points ({shape[axis]})")
        return tuple(shape)
    return rule


def _fftn(last):
    """np.fft's n-d transforms (fftn, rfft2, irfftn, ...): the axes transformed (the last
    len(s), or all, unless given), each of length s[i] or its own; `last(n, m)` the
    last axis's length out of its n (s's, or None) and its own m (rfft: n // 2 + 1)."""
    def rule(b):
        shape, axes, s = list(_shape(b, "a")), b.get("axes"), b.get("s")
        if axes is None:
            axes = range(-len(s), 0) if s is not None else range(len(shape))
        axes = [_axis(ax, len(shape), "fftn") for ax in axes]
        if s is not None and len(s) != len(axes) or not axes or len(set(axes)) != len(axes):
            raise Unsupported("unsupported", "np.fft n-d with these axes and lengths")
        for i, ax in enumerate(axes):
            n = None if s is None else _index_of(s[i])
            shape[ax] = last(n, shape[ax]) if i == len(axes) - 1 else (n or shape[ax])
            if shape[ax] < 1:
                raise Unsupported("error", f"Invalid number of FFT data points ({shape[ax]})")
        return tuple(shape)
    return rule


def _index_of(v):
    try:
        return operator.index(v)
    except TypeError:
        raise Unsupported("unsupported", f"an FFT length {v!r}")


def _same(name):
    return lambda b: _shape(b, name)


def _broadcast(*names):
    return lambda b: np.broadcast_shapes(*[_shape(b, n) for n in names])


# what makes the call's effect or result other than a pure function of the arrays
_REFUSED = {"out": None, "overwrite_input": False, "returned": False, "overwrite_a": False}

SHAPES = {
    np.sort: _along, np.argsort: _argsort,
    np.partition: _partitioned, np.argpartition: _partitioned,
    **{getattr(np, name): _reduced for name in LIBRARY_REDUCTIONS},
    **{getattr(np, name): _quantiles for name in QUANTILES},
    np.around: _same("a"), np.take: _take, np.searchsorted: _same("v"),
    np.interp: _same("x"), np.polyval: _same("x"), np.isclose: _broadcast("a", "b"),
    np.einsum: _einsum, np.tensordot: _tensordot, np.kron: _kron, np.trace: _trace,
    np.meshgrid: _meshgrid, np.histogram: _histogram, np.histogram2d: _histogram2d,
    np.cov: _covariance, np.corrcoef: _covariance,
    np.linalg.cholesky: _same("a"), np.linalg.qr: _qr, np.linalg.svd: _svd,
    np.linalg.eigh: _eigh, np.linalg.eigvalsh: lambda b: _shape(b, "a")[:-1],
    np.linalg.eigvals: _eig_of_complex,
    np.linalg.eig: lambda b: [_eig_of_complex(b), _shape(b, "a")],
    np.linalg.det: _square_stack, np.linalg.pinv: lambda b: _shape(
        b, "a")[:-2] + _shape(b, "a")[:-3:-1],
    np.linalg.matrix_power: _same("a"),
    np.fft.fft: _fft(lambda n, m: n or m), np.fft.ifft: _fft(lambda n, m: n or m),
    np.fft.rfft: _fft(lambda n, m: (n or m) // 2 + 1),
    np.fft.irfft: _fft(lambda n, m: n or 2 * (m - 1)),
    np.fft.fft2: _fftn(lambda n, m: n or m), np.fft.ifft2: _fftn(lambda n, m: n or m),
    np.fft.fftn: _fftn(lambda n, m: n or m), np.fft.ifftn: _fftn(lambda n, m: n or m),
    np.fft.rfft2: _fftn(lambda n, m: (n or m) // 2 + 1),
    np.fft.rfftn: _fftn(lambda n, m: (n or m) // 2 + 1),
    np.fft.irfft2: _fftn(lambda n, m: n or 2 * (m - 1)),
    np.fft.irfftn: _fftn(lambda n, m: n or 2 * (m - 1)),
    np.fft.fftshift: _same("x"), np.fft.ifftshift: _same("x"),
}
# arguments that the one-element stand-ins of the probe must not see as they are (the
# rule has checked them against the real shapes): fn -> (bound, given) -> given for the probe
PROBE_ARGS = {np.partition: _first_kth, np.argpartition: _first_kth, np.take: _indices_checked}
for _name in ("round", "round_"):     # aliases of np.around in some versions
    if callable(getattr(np, _name, None)):
        SHAPES.setdefault(getattr(np, _name), _same("a"))


def declare(shapes, signatures=None):
    """Library calls whose shape rules live with their kin in another file
    (numeric_library.py, index_library.py): joined to SHAPES, and their entries of the
    table of captured functions. `signatures`: for C functions that carry none (NumPy
    1.x's np.lexsort), a Python function of the same parameters."""
    SHAPES.update(shapes)
    for fn, params in (signatures or {}).items():
        _SIGNATURES[fn] = inspect.signature(params)
    return {fn: library_call for fn in shapes}


_SIGNATURES = {}   # fn -> inspect.Signature: asked on every traced call, made once


def library_call(tracer, fn, *args, **kwargs):
    """A declared library function (SHAPES) as a NumPy step of the graph."""
    sig = _SIGNATURES.get(fn)
    if sig is None:
        sig = _SIGNATURES[fn] = inspect.signature(fn)
    try:
        bound = sig.bind(*args, **kwargs)
    except (TypeError, ValueError):
        raise Unsupported("error", f"np.{fn.__name__}: arguments NumPy would refuse")
    given = dict(bound.arguments)   # what the call passes; the rules read the defaults too
    bound.apply_defaults()          # (axis=-1 where the call left it out)
    b = bound.arguments
    for name, ok in _REFUSED.items():
        if name in b and b[name] is not ok:
            raise Unsupported("unsupported", f"np.{fn.__name__}({name}=...)")
    inputs = []
    template = {name: _operand(tracer, inputs, v) for name, v in given.items()}
    if not inputs:
        raise Unsupported("unsupported", f"np.{fn.__name__} of no array")
    shapes = SHAPES[fn](b)
    adapt = PROBE_ARGS.get(fn)
    probe = _quiet_probe(fn, sig, given if adapt is None else adapt(b, given), inputs)
    args, kw = _as_call(sig, template)
    nodes = tuple(lz._n for lz in inputs)
    if isinstance(shapes, list):
        if not isinstance(probe, (tuple, list)) or len(probe) != len(shapes):
            raise Unsupported("unsupported", f"np.{fn.__name__}: results unlike NumPy's")
        items = tracer.make_multi(fn, args, kw or None, nodes,
                                  [np.asarray(p).dtype for p in probe], shapes, fn.__name__,
                                  scalar=all(isinstance(p, np.generic) for p in probe
                                             if np.ndim(p) == 0))
        # NumPy 2's named results (QRResult(Q, R)) take their items one by one
        return type(probe)(*items) if hasattr(probe, "_fields") else type(probe)(items)
    return tracer.make(fn, args, kw or None, nodes, np.asarray(probe).dtype, shapes,
                       fn.__name__, scalar=shapes == () and isinstance(probe, np.generic))


def _operand(tracer, inputs, v):
    """A call's argument in its template: arrays become Refs to `inputs`, appended.
    (A module function: a closure calling itself is a reference cycle that kept the
    inputs' lazy arrays alive until the garbage collector ran, and a lazy array alive
    at a flush is a graph output, so the graph changed from call to call.)"""
    if type(v) is _la.LazyArray or type(v) is np.ndarray:
        inputs.append(as_lazy(tracer, v))
        return Ref(len(inputs) - 1)
    if isinstance(v, (list, tuple)) and any(type(x) is _la.LazyArray for x in v):
        return type(v)(_operand(tracer, inputs, x) for x in v)
    return v


def _as_call(sig, arguments):
    """(positional, keyword) arguments of a call from arguments by parameter name:
    positional parameters by position, *args spread, the rest by keyword."""
    b = sig.bind_partial()
    b.arguments.update(arguments)
    return b.args, b.kwargs


# a probe at the arrays' own shapes (constant stand-ins, no memory) costs as much as the
# call: tried only where smaller stand-ins were refused, and for calls this small
_PROBE_FULL_MAX = 1 << 16
# the stand-ins' sizes tried in turn, per axis: one element; at most three (np.cross's
# vectors of 3, np.gradient's 3 points for edge_order=2; axes that broadcast together
# still do, min(n, 3) of equal sizes being equal); the arrays' own (None)
_PROBE_SIZES = (1, 3, None)


def _quiet_probe(fn, sig, given, inputs):
    """fn on stand-ins (ones where inexact, zeros where integer, so that an index is
    valid and a 1x1 matrix is not singular): NumPy's result dtypes and scalar boxing.
    One element per array first; then small ones; at the arrays' shapes where those are
    refused (a constant index list past one element). Shapes come from SHAPES' rules,
    which check what small stand-ins would let pass."""

    def stand_in(v, most):
        if type(v) is _la.LazyArray or type(v) is np.ndarray:
            dt = v.dtype
            one = (_nb.ones if dt.kind in "fc" else _nb.zeros)((), dt)
            if most == 1:
                return one.reshape((1,) * v.ndim)
            return np.broadcast_to(one, v.shape if most is None else
                                   tuple(min(d, most) for d in v.shape))
        if isinstance(v, (list, tuple)) and any(type(x) is _la.LazyArray for x in v):
            return type(v)(stand_in(x, most) for x in v)
        return v
    sizes = sum(int(np.prod(lz.shape)) for lz in inputs)
    for most in _PROBE_SIZES:
        args, kw = _as_call(sig, {k: stand_in(v, most) for k, v in given.items()})
        try:
            return _quiet(fn, *args, **kw)
        except Exception as e:
            if most is None or (most == _PROBE_SIZES[-2] and sizes > _PROBE_FULL_MAX):
                raise Unsupported("unsupported", f"np.{fn.__name__}: {e}")


TABLE = {
    np.cumsum: cumulative,
    np.cumprod: cumulative,
    np.linalg.solve: solve,
    np.linalg.inv: inv,
}
TABLE.update({fn: library_call for fn in SHAPES})
