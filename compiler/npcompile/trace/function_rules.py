"""How NumPy functions on lazy arrays are recorded (__array_function__), and the table
of what is captured. Anything not in the table runs eagerly: a graph break."""
import math
import operator

import numpy as np

from ..memo import Memo
from ..dtypes import dtype_key, traced_array, traced_dtype
from .. import np_base as _nb

from ..graph import calls
from ..ops import REDUCTION_OF, REDUCTIONS, UFUNC_REDUCTIONS
from ..graph.node import Ref
from . import lazy_array as _la, library_rules, view_rules
from . import python_numbers
from .python_numbers import PyNumber
from .library_rules import matmul
from .masked_select import nonzero_indices
from .operands import (NUMPY2, Operands, Unsupported, _quiet, as_lazy, broadcast, proto,
                       refuse_negative_powers,
                       resolve)

_NOVALUE = getattr(np, "_NoValue", None)


def _name(func):
    mod = getattr(func, "__module__", "") or ""
    prefix = "np.linalg." if "linalg" in mod else "np."
    return prefix + getattr(func, "__name__", repr(func))


def call(tracer, func, args, kwargs):
    rule = TABLE.get(func)
    if rule is None:
        return tracer.eager(func, args, kwargs, "unsupported", f"unsupported function {_name(func)}")
    try:
        return rule(tracer, func, *args, **kwargs)
    except Unsupported as u:
        return tracer.eager(func, args, kwargs, u.kind, u.reason)
    except TypeError as e:  # a call NumPy itself would refuse: let NumPy say so
        return tracer.eager(func, args, kwargs, "error", f"{_name(func)}: {e}")


# ----- reductions -------------------------------------------------------------------
# each NumPy reduction by its function (ops.REDUCTIONS declares them)
_REDUCTIONS = {fn: REDUCTIONS[name] for fn, name in REDUCTION_OF.items()}


def _bind(names, args, kwargs, fname):
    if len(args) > len(names):
        raise TypeError(f"{fname}() takes at most {len(names) + 1} positional arguments")
    bound = dict(zip(names, args))
    for k, v in kwargs.items():
        if k in bound:
            raise TypeError(f"{fname}() got multiple values for argument '{k}'")
        bound[k] = v
    return bound


def _reduced_shape(shape, axis, keepdims):
    if axis is None:
        axes = set(range(len(shape)))
    else:
        axes = {a % len(shape) if len(shape) else a for a in (axis if type(axis) is tuple else (axis,))}
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape)), axes
    return tuple(d for i, d in enumerate(shape) if i not in axes), axes


def _reduce(tracer, fn, label, a, kw, default_axis=None):
    # initial= and where= (`np.sum(x, where=m)`, `x.max(initial=0)`) are NumPy's own
    # reduction, run as a step of the graph: the fusion computes only plain reductions
    extra = {}
    for k in ("out", "initial", "where"):
        v = kw.pop(k, _NOVALUE)
        if v is _NOVALUE or (k == "out" and v is None) or (k == "where" and v is True):
            continue
        if k == "out" or (k == "initial" and not isinstance(
                v, (bool, int, float, np.bool_, np.integer, np.floating))):
            raise Unsupported("unsupported", f"{label}(..., {k}=)")
        extra[k] = v
    for k in list(kw):
        if k not in ("axis", "dtype", "keepdims", "ddof"):
            raise TypeError(f"{label}() got an unexpected keyword argument '{k}'")
        if kw[k] is _NOVALUE:
            del kw[k]
    lz = as_lazy(tracer, a)
    ax = kw.get("axis", default_axis)
    if ax is not None and lz.ndim == 0:
        # NumPy takes axis 0 (or -1) of a 0-d array for some reductions and refuses it
        # for others: its own call says which
        raise Unsupported("unsupported", f"{label} of a 0-d array along an axis")
    if isinstance(ax, list):
        ax = tuple(ax)
    if isinstance(ax, np.integer):
        ax = int(ax)
    if ax is not None:
        kw["axis"] = ax
    if "initial" in extra:
        kw["initial"] = extra["initial"]
    # where=True in the probe: NumPy's TypeError where the function takes no mask
    dtype = _reduction_dtype(fn, label, lz, dict(kw, where=True) if "where" in extra else kw)
    keepdims = bool(kw.get("keepdims", False))
    shape, axes = _reduced_shape(lz.shape, ax, keepdims)
    red = _REDUCTIONS.get(fn)     # None: ufunc.reduce, whose identity NumPy checks
    if red is not None and not red.identity and "initial" not in kw and (
            "where" in extra or any(lz.shape[i] == 0 for i in axes)):
        # an empty axis, or a mask without initial= (NumPy refuses it, used or not)
        raise Unsupported("error", f"{label} of an empty array, or where= without initial=")
    inputs = (lz._n,)
    if "where" in extra:
        mask = as_lazy(tracer, extra["where"])
        if mask.dtype != np.bool_:
            raise Unsupported("unsupported", f"{label}(..., where=) of a mask not boolean")
        if broadcast([mask.shape, lz.shape]) != lz.shape:
            raise Unsupported("error", f"{label}: the mask does not broadcast to the array")
        kw["where"] = Ref(1)
        inputs += (mask._n,)
    return tracer.make(fn, (Ref(0),), kw or None, inputs, dtype, shape, label,
                       scalar=len(shape) == 0)


_RED_DTYPES = Memo()  # (fn, dtype, ndim, options) -> result dtype, as NumPy said once


def _reduction_dtype(fn, label, lz, kw):
    """NumPy's result dtype for this reduction, asked on a one-element prototype (under
    errstate and warnings guards that cost more than the rest of the op: memoized)."""
    try:
        key = (fn, dtype_key(lz.dtype), lz.ndim, tuple(sorted(kw.items())))
        dtype = _RED_DTYPES.get(key)
    except TypeError:  # an unhashable option: ask NumPy every time
        key, dtype = None, None
    if dtype is None:
        try:
            dtype = np.dtype(_quiet(fn, _nb.ones((1,) * lz.ndim, lz.dtype), **kw).dtype)
        except Exception as e:
            raise Unsupported("error", f"{label}: {e}")
        if key is not None:
            _RED_DTYPES[key] = dtype
    return dtype


def reduction(tracer, fn, a, *args, **kwargs):
    red = _REDUCTIONS[fn]
    label = red.kernel
    kw = _bind(red.params, args, kwargs, label)
    return _reduce(tracer, fn, label, a, kw)


_UFUNC_REDUCE = {getattr(np, name) for name in UFUNC_REDUCTIONS}


def ufunc_reduce(tracer, ufunc, inputs, kwargs):
    if ufunc not in _UFUNC_REDUCE or len(inputs) != 1:
        raise Unsupported("unsupported", f"np.{ufunc.__name__}.reduce")
    kw = dict(kwargs)
    kw.setdefault("axis", 0)
    return _reduce(tracer, ufunc.reduce, f"{ufunc.__name__}.reduce", inputs[0], kw)


def norm(tracer, fn, x, ord=None, axis=None, keepdims=False):
    lz = as_lazy(tracer, x)
    if isinstance(axis, list):
        axis = tuple(axis)
    vector = (axis is None and lz.ndim == 1) or isinstance(axis, (int, np.integer)) or (
        type(axis) is tuple and len(axis) == 1)
    # a matrix's norms other than Frobenius (1, 2, inf, 'nuc', ...: column sums, the
    # largest singular value) are NumPy's call as a step; fusion/expr.py computes only
    # the sums of squares
    matrix_ok = ord in (None, "fro", 1, -1, 2, -2, np.inf, -np.inf, "nuc") and (
        axis is None and lz.ndim == 2 or type(axis) is tuple and len(axis) == 2)
    if not vector and not matrix_ok:
        raise Unsupported("unsupported", f"np.linalg.norm(ord={ord!r}, axis={axis!r})")
    if isinstance(ord, str) and vector:
        raise Unsupported("error", f"Invalid norm order '{ord}' for vectors")
    kw = {"ord": ord, "axis": axis, "keepdims": keepdims}
    try:
        r = _quiet(fn, _nb.ones((1,) * lz.ndim, lz.dtype), **kw)
    except Exception as e:
        raise Unsupported("error", f"np.linalg.norm: {e}")
    if isinstance(axis, np.integer):
        axis = kw["axis"] = int(axis)
    shape, _ = _reduced_shape(lz.shape, axis, keepdims)
    return tracer.make(fn, (Ref(0),), kw, (lz._n,), np.dtype(r.dtype), shape, "norm",
                       scalar=len(shape) == 0)


def outer(tracer, fn, a, b, out=None):
    """np.outer is multiply(a.ravel()[:, None], b.ravel()[None, :]): the same
    composition here, so it fuses with what reads it (A -= np.outer(u, v) is one kernel).
    A plain NumPy array or scalar operand is a constant of the graph."""
    if out is not None:
        raise Unsupported("unsupported", "np.outer(..., out=)")
    x, y = as_lazy(tracer, a).ravel(), as_lazy(tracer, b).ravel()
    return x[:, None] * y[None, :]


# ----- elementwise functions that are not ufuncs -----------------------------------------
def _resolve_call(fn, ops, label):
    """fn on the operands' prototypes: NumPy's result dtype, or NumPy's own error later."""
    try:
        return resolve(lambda p: fn(*p), ops)
    except Unsupported:
        raise
    except Exception as e:
        raise Unsupported("error", f"{label}: {e}")


def where(tracer, fn, cond, *xy):
    if not xy:      # np.where(m): np.nonzero(m), lazy for a 1-d m (masked_select.py)
        got = nonzero_indices(tracer, cond)
        if got is not None:
            return (got,)
    if len(xy) != 2:
        raise Unsupported("data_shape", "np.where(cond) with one argument returns indices: "
                                        "a data-dependent shape")
    ops = Operands(tracer, [cond, xy[0], xy[1]])
    r = _resolve_call(fn, ops, "np.where")
    shape = broadcast(ops.shapes)
    return tracer.make(fn, tuple(ops.template), None, tuple(ops.inputs), np.dtype(r.dtype), shape,
                       "where", scalar=ops.all_zero_d)


def clip(tracer, fn, a, *args, **kwargs):
    names = ("a_min", "a_max", "out")
    kw = _bind(names, args, kwargs, "clip")
    lo = kw.pop("a_min", kw.pop("min", None))
    hi = kw.pop("a_max", kw.pop("max", None))
    out = kw.pop("out", None)
    if kw or (out is not None and type(out) is not _la.LazyArray):
        raise Unsupported("unsupported", "np.clip(..., out= an untraced array, or other "
                                         "keywords)")
    ops = Operands(tracer, [a, lo, hi])
    r = _resolve_call(fn, ops, "np.clip")
    shape = broadcast([s for s in ops.shapes])
    clipped = tracer.make(fn, tuple(ops.template), None, tuple(ops.inputs), np.dtype(r.dtype),
                          shape, "clip", scalar=ops.all_zero_d and out is None)
    if out is None:
        return clipped
    if np.dtype(r.dtype) != out.dtype or broadcast([shape, out.shape]) != out.shape:
        # out= of another dtype casts as its ufunc decides (same_kind): NumPy's call
        raise Unsupported("unsupported", "np.clip(..., out=) of another dtype or shape")
    out[...] = clipped      # `np.clip(x, lo, hi, out=x)`: x's next version
    return out


def astype(tracer, lz, dtype, order="K", casting="unsafe", subok=True, copy=True):
    dt = np.dtype(dtype)
    if not traced_dtype(dt):
        raise Unsupported("unsupported", f"astype({dt})")
    if not np.can_cast(lz.dtype, dt, casting):
        raise Unsupported("error", f"astype: cannot cast {lz.dtype} to {dt} under {casting!r}")
    if dt == lz.dtype and not copy:
        return lz
    return tracer.make(calls.astype, (Ref(0), dt, casting), None, (lz._n,), dt, lz.shape,
                       f"astype({dt})", scalar=lz._scalar)


def copy(tracer, lz, order="C"):
    return tracer.make(calls.copy, (Ref(0),), None, (lz._n,), lz.dtype, lz.shape, "copy",
                       scalar=lz._scalar)


def np_copy(tracer, fn, a, order="K", subok=False):
    return copy(tracer, as_lazy(tracer, a))


def flatten(tracer, lz, order="C"):
    if order != "C":
        raise Unsupported("unsupported", f"flatten(order={order!r})")
    return tracer.make(calls.flatten, (Ref(0),), None, (lz._n,), lz.dtype, (lz.size,), "flatten")


_POW_DTYPES = Memo()  # (dtype, 0-d, exponent type, exponent) -> result dtype, as NumPy said


def scalar_pow(tracer, lz, exponent):
    """`x ** scalar` as ndarray.__pow__ does it (see _la.LazyArray.__pow__)."""
    import operator
    key = (dtype_key(lz.dtype), lz.ndim == 0, type(exponent), exponent)
    try:
        dtype = _POW_DTYPES.get(key)
    except TypeError:  # an unhashable exponent: ask NumPy every time
        key, dtype = None, None
    if lz.dtype.kind in "biu":      # bool ** int is an integer power too
        refuse_negative_powers(exponent)
    if dtype is None:
        try:
            dtype = np.dtype(_quiet(operator.pow, _proto_of(lz), exponent).dtype)
        except Unsupported:
            raise
        except Exception as e:
            raise Unsupported("error", f"power: {e}")
        if key is not None:
            _POW_DTYPES[key] = dtype
    return tracer.make(operator.pow, (Ref(0), exponent), None, (lz._n,), dtype,
                       lz.shape, "power", scalar=lz._scalar)


def _proto_of(lz):
    # NumPy 1.x: a 0-d base's ** takes paths its value can steer, except for the widest
    # dtype of each kind (`dx ** 2` of a float64 step is float64 whatever dx is)
    if lz.ndim == 0 and not NUMPY2 and lz.dtype not in _WIDEST:
        raise Unsupported("value_dtype", "x ** scalar on a 0-d value under NumPy 1.x")
    return proto(lz.dtype, lz.ndim == 0)


_WIDEST = frozenset(np.dtype(d) for d in ("int64", "float64", "complex128"))


# ----- library calls ---------------------------------------------------------------------
def dot(tracer, fn, a, b, out=None):
    if out is not None:
        raise Unsupported("unsupported", "np.dot(..., out=)")
    la, lb = as_lazy(tracer, a), as_lazy(tracer, b)
    if la.ndim > 2 or lb.ndim > 2 or la.ndim == 0 or lb.ndim == 0:
        raise Unsupported("unsupported", "np.dot beyond 1-d and 2-d operands")
    return matmul(tracer, la, lb, np.dot, "dot")


def concatenate(tracer, fn, arrays, axis=0, out=None, dtype=None, casting="same_kind"):
    if out is not None:
        raise Unsupported("unsupported", "np.concatenate(..., out=)")
    lzs = [as_lazy(tracer, a) for a in arrays]
    if not lzs:
        raise Unsupported("error", "need at least one array to concatenate")
    kw = {"axis": axis}
    if dtype is not None:
        kw["dtype"] = dtype
    if casting != "same_kind":
        kw["casting"] = casting
    try:
        r = _quiet(fn, [_nb.ones((1,) * lz.ndim, lz.dtype) for lz in lzs], **kw)
    except Exception as e:
        raise Unsupported("error", f"np.concatenate: {e}")
    if axis is None:
        shape = (sum(lz.size for lz in lzs),)
    else:
        nd = lzs[0].ndim
        ax = axis % nd
        base = lzs[0].shape
        for lz in lzs[1:]:
            if lz.ndim != nd or any(lz.shape[i] != base[i] for i in range(nd) if i != ax):
                raise Unsupported("error", "np.concatenate: dimensions do not match")
        shape = base[:ax] + (sum(lz.shape[ax] for lz in lzs),) + base[ax + 1:]
    refs = [Ref(i) for i in range(len(lzs))]
    return tracer.make(fn, (refs,), kw, tuple(lz._n for lz in lzs), np.dtype(r.dtype), shape,
                       "concatenate")


def stack(tracer, fn, arrays, axis=0, out=None, **kwargs):
    if out is not None:
        raise Unsupported("unsupported", "np.stack(..., out=)")
    lzs = [as_lazy(tracer, a) for a in arrays]
    if not lzs or any(lz.shape != lzs[0].shape for lz in lzs):
        raise Unsupported("error", "np.stack: all input arrays must have the same shape")
    kw = dict(kwargs, axis=axis)
    try:
        r = _quiet(fn, [_nb.ones((1,) * lz.ndim, lz.dtype) for lz in lzs], **kw)
    except Exception as e:
        raise Unsupported("error", f"np.stack: {e}")
    if kwargs:
        nd = lzs[0].ndim + 1
        ax = axis % nd
        base = lzs[0].shape
        shape = base[:ax] + (len(lzs),) + base[ax:]
        refs = [Ref(i) for i in range(len(lzs))]
        return tracer.make(fn, (refs,), kw, tuple(lz._n for lz in lzs), np.dtype(r.dtype),
                           shape, "stack")
    # a concatenation of the items with the new axis inserted (views): the kernels fuse
    # it (np.stack itself is NumPy's Python code, ~10 us a call, as a step of a loop body)
    ax = operator.index(axis) % (lzs[0].ndim + 1)
    key = (slice(None),) * ax + (None, Ellipsis)   # a getitem: run in C, not Python
    return concatenate(tracer, np.concatenate, [view_rules.getitem(tracer, lz, key)
                                                for lz in lzs], axis=ax)


# ----- views through functions -----------------------------------------------------------
def _view_fn(label):
    def rule(tracer, fn, a, *args, **kwargs):
        return view_rules.pure_view(tracer, as_lazy(tracer, a), fn, args, kwargs or None, label)
    return rule


def reshape_fn(tracer, fn, a, *args, **kwargs):
    kw = _bind(("newshape", "order"), args, kwargs, "reshape")
    shape = kw.pop("newshape", kw.pop("shape", None))
    return view_rules.reshape(tracer, as_lazy(tracer, a), shape, kw.pop("order", "C"))


def ravel_fn(tracer, fn, a, order="C"):
    return view_rules.ravel(tracer, as_lazy(tracer, a), order)


def static_attr(attr):
    def rule(tracer, fn, a, *args):
        if args:
            raise Unsupported("unsupported", f"np.{attr} with arguments")
        return getattr(a, attr)
    return rule


# ----- creation ----------------------------------------------------------------------------
def _shape_arg(shape):
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    try:
        return tuple(int(operator.index(d)) for d in shape)
    except TypeError:
        raise Unsupported("error", "shape must be integers")


def filled(tracer, fn, shape, *args, **kwargs):
    """zeros, ones, empty, full with static arguments: a node with no inputs."""
    if any(type(v) is _la.LazyArray for v in args + tuple(kwargs.values())):
        raise Unsupported("unsupported", f"{_name(fn)} with an array-valued argument")
    shp = _shape_arg(shape)
    if any(d < 0 for d in shp):
        raise Unsupported("error", "negative dimensions are not allowed")
    kwargs.pop("like", None)
    r = fn((0,) * len(shp), *args, **kwargs)
    if not traced_dtype(r.dtype):
        raise Unsupported("unsupported", f"{_name(fn)} of dtype {r.dtype}")
    # np.empty's contents are undefined; zeros are a valid choice and keep results stable.
    rec = _nb.zeros if fn is _nb.empty else fn
    return tracer.make(rec, (shp,) + tuple(args), kwargs or None, (), np.dtype(r.dtype), shp,
                       fn.__name__)


_LIKE_TO = {}


def like(tracer, fn, a, *args, **kwargs):
    base_fn, names = _LIKE_TO[fn]
    kw = _bind(names, args, kwargs, fn.__name__)
    lz = as_lazy(tracer, a) if not isinstance(a, (int, float, bool, complex)) else None
    shape = kw.pop("shape", None)
    shape = tuple(lz.shape if lz is not None else ()) if shape is None else _shape_arg(shape)
    dtype = kw.pop("dtype", None)
    dtype = np.dtype(dtype) if dtype is not None else (lz.dtype if lz is not None else _nb.asarray(a).dtype)
    kw.pop("subok", None)
    order = kw.pop("order", "K")
    extra = (kw.pop("fill_value"),) if "fill_value" in kw else ()
    ckw = {"dtype": dtype}
    if order in ("C", "F"):
        ckw["order"] = order
    return filled(tracer, base_fn, shape, *extra, **ckw)


def arange(tracer, fn, *args, **kwargs):
    kw = _bind(("start", "stop", "step", "dtype"), args, kwargs, "arange")
    kw.pop("like", None)
    start, stop, step = kw.get("start"), kw.get("stop"), kw.get("step")
    if stop is None:
        start, stop = 0, start
    if step is None:
        step = 1
    vals = (start, stop, step)
    if not all(type(v) in (int, float) for v in vals):
        raise Unsupported("unsupported", "np.arange with non-Python-number arguments")
    if step == 0:
        raise Unsupported("error", "np.arange: step 0")
    if all(type(v) is int for v in vals):
        n = len(range(start, stop, step))
    else:
        n = max(0, math.ceil((stop - start) / step))
    dtype = kw.get("dtype")
    dt = np.dtype(dtype) if dtype is not None else _nb.arange(start, start + step, step).dtype
    if dt.kind not in "biuf":
        raise Unsupported("unsupported", f"np.arange of dtype {dt}")
    ckw = {"dtype": dt}
    return tracer.make(_nb.arange, (start, stop, step), ckw, (), dt, (n,), "arange")


def linspace(tracer, fn, start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    if retstep or axis != 0 or not all(type(v) in (int, float) for v in (start, stop)):
        raise Unsupported("unsupported", "np.linspace beyond scalar start/stop")
    num = operator.index(num)
    if num < 0:
        raise Unsupported("error", "np.linspace: negative num")
    dt = _nb.linspace(start, stop, 2, endpoint=endpoint, dtype=dtype).dtype
    return tracer.make(_nb.linspace, (start, stop, num), {"endpoint": endpoint, "dtype": dt}, (),
                       dt, (num,), "linspace")


def eye(tracer, fn, N, M=None, k=0, dtype=float, order="C", **kwargs):
    kwargs.pop("like", None)
    N = operator.index(N)
    M = N if M is None else operator.index(M)
    dt = np.dtype(dtype)
    return tracer.make(_nb.eye, (N, M, k), {"dtype": dt, "order": order}, (), dt, (N, M), "eye")


def _asarray(tracer, fn, a, dtype=None, order=None, **kwargs):
    if type(a) in (list, tuple):
        return _from_sequence(tracer, fn, a, dtype, order, kwargs)
    if type(a) is not _la.LazyArray:
        raise Unsupported("unsupported", "asarray of a non-array")
    copies = fn is np.array and kwargs.get("copy", True)
    if a._scalar:
        # a NumPy scalar becomes a 0-d array: a new one (the scalar is a value, and
        # writes into the array must not change it); np.array, which never returns a
        # scalar (calls.copy keeps what it is given)
        a = tracer.make(_nb.array, (Ref(0),), None, (a._n,), a.dtype, (), "array")
        copies = False
    if dtype is None or np.dtype(dtype) == a.dtype:
        return copy(tracer, a) if copies else a
    return astype(tracer, a, dtype)


# np.array of a list with more items than this is left to NumPy (a break): each item is
# a graph node
_MAX_SEQUENCE_ITEMS = 4096


def _from_sequence(tracer, fn, seq, dtype, order, kwargs):
    """np.array([x, y, z]) of traced values (an ODE's right-hand side built from the
    components of its state, a list of arrays a loop appended): each item cast to the
    dtype NumPy picks, stacked level by level. The dtype, the shape and any error
    (ragged lists) come from NumPy itself on stand-ins of the items."""
    if not _holds_lazy(seq, 0):
        raise Unsupported("unsupported", "a sequence of concrete values")
    try:
        if kwargs.keys() - {"copy", "like", "subok"} or order not in (None, "C", "K", "A"):
            raise Unsupported("unsupported", f"np.{fn.__name__} with these arguments")
        probe = _stand_ins(seq, [], 0)
        try:
            got = _quiet(_nb.array, probe, dtype=dtype)
        except Exception as e:
            raise Unsupported("error", f"np.{fn.__name__}: {e}")
        if not traced_dtype(got.dtype):
            raise Unsupported("unsupported", f"np.{fn.__name__} of dtype {got.dtype}")
        out = _stacked(tracer, seq, got.dtype)
        if out.shape != got.shape:      # NumPy saw the items another way: leave it to NumPy
            raise Unsupported("unsupported", f"np.{fn.__name__} of this nesting")
        return out
    except Unsupported:
        # NumPy's own call on the items' values (a graph break at each traced item):
        # NumPy cannot read a traced array inside a list, and would raise where it
        # would not on the values
        kw = dict(kwargs, dtype=dtype) if order is None else dict(kwargs, dtype=dtype, order=order)
        out = fn(_concrete(seq), **kw)
        # of Python values alone (a literal matrix, `[[1, dt], [0, 1]]`): a constant
        # of the call's key, which a replay keeps (read items made a break, no plan)
        return tracer.made_here(out) if not _holds_lazy(seq, 0) else out


def _holds_lazy(seq, depth):
    return depth < 8 and any(type(x) is _la.LazyArray or
                             (type(x) in (list, tuple) and _holds_lazy(x, depth + 1))
                             for x in seq)


def _concrete(seq):
    out = [_concrete(x) if type(x) in (list, tuple) else
           ((lambda v: v[()] if v.ndim == 0 else v)(_nb.asarray(x))
            if type(x) is _la.LazyArray else x) for x in seq]
    return out if type(seq) is list else tuple(out)


def _stand_ins(seq, leaves, depth):
    if depth > 8 or len(leaves) + len(seq) > _MAX_SEQUENCE_ITEMS:
        raise Unsupported("unsupported", "np.array of a deep or long sequence")
    out = []
    for x in seq:
        if type(x) in (list, tuple):
            out.append(_stand_ins(x, leaves, depth + 1))
            continue
        leaves.append(x)
        if type(x) is _la.LazyArray and x._scalar.__class__ is PyNumber:
            out.append(x._scalar.type(0))   # a lazy Python number (np.count_nonzero's)
        elif type(x) is _la.LazyArray:
            # a 0-d item as a NumPy scalar: np.array discovers dtypes of scalars and
            # 0-d arrays alike, and keeps the item's own dtype
            out.append(_nb.zeros(x.shape, x.dtype) if x.ndim else x.dtype.type(0))
        elif isinstance(x, (int, float, complex, bool, np.generic)) or traced_array(x):
            out.append(x)
        else:
            raise Unsupported("unsupported", f"np.array of a sequence holding {type(x).__name__}")
    return out


def _numpy_item(tracer, lz, dtype):
    """A lazy Python number (np.count_nonzero's int) as an item of np.array's result of
    `dtype`: the number as NumPy converts it, where every value it may take fits (the
    stand-in that chose the dtype was 0: NumPy would raise, or wrap, on the value)."""
    num = lz._scalar
    if dtype.kind in "iub" and (num.type is not int or num.lo is None or dtype.kind == "b" or
                                not np.iinfo(dtype).min <= num.lo <= num.hi <= np.iinfo(dtype).max):
        raise Unsupported("unsupported", f"a Python number in np.array of {dtype}")
    return python_numbers.as_numpy(tracer, lz, dtype)


def _stacked(tracer, seq, dtype):
    items = []
    for x in seq:
        lz = _stacked(tracer, x, dtype) if type(x) in (list, tuple) else as_lazy(tracer, x)
        if lz._scalar.__class__ is PyNumber:
            lz = _numpy_item(tracer, lz, dtype)
        items.append(lz if lz.dtype == dtype else astype(tracer, lz, dtype))
    if not items:
        raise Unsupported("unsupported", "np.array of an empty sequence")
    return stack(tracer, np.stack, items)


def _as_ordered(tracer, fn, a, dtype=None, **kwargs):
    """np.ascontiguousarray / np.asfortranarray: the array itself where its layout
    already is that order (NumPy returns it, and writes through it show in the
    original), else a copy. A traced copy's memory is C-ordered once computed: the
    values are NumPy's, and its flags say C, not F."""
    if type(a) is not _la.LazyArray or kwargs.keys() - {"like"}:
        raise Unsupported("unsupported", f"np.{fn.__name__} of a non-array")
    flags = a._get_fake().flags
    ordered = flags.c_contiguous if fn.__name__ == "ascontiguousarray" else flags.f_contiguous
    out = a if ordered and a.ndim else copy(tracer, a)
    if a.ndim == 0:                     # NumPy makes a 0-d array 1-d here
        out = out.reshape(1)
    return out if dtype is None or np.dtype(dtype) == a.dtype else astype(tracer, out, dtype)


def result_type(tracer, fn, *arrays_and_dtypes):
    protos = []
    for x in arrays_and_dtypes:
        if type(x) is _la.LazyArray:
            if x.ndim == 0 and not NUMPY2:
                raise Unsupported("value_dtype", "np.result_type of a 0-d value under NumPy 1.x")
            protos.append(_nb.empty((0,) if x.ndim else (), x.dtype))
        else:
            protos.append(x)
    return fn(*protos)


TABLE = {}
for _fn in _REDUCTIONS:
    TABLE[_fn] = reduction
TABLE.update({
    np.where: where,
    np.clip: clip,
    np.linalg.norm: norm,
    np.concatenate: concatenate,
    np.stack: stack,
    np.dot: dot,
    np.outer: outer,
    np.copy: np_copy,
    np.transpose: _view_fn("transpose"),
    np.swapaxes: _view_fn("swapaxes"),
    np.squeeze: _view_fn("squeeze"),
    np.expand_dims: _view_fn("expand_dims"),
    np.broadcast_to: _view_fn("broadcast_to"),
    np.moveaxis: _view_fn("moveaxis"),
    np.reshape: reshape_fn,
    np.ravel: ravel_fn,
    np.shape: static_attr("shape"),
    np.ndim: static_attr("ndim"),
    np.size: static_attr("size"),
    np.result_type: result_type,
    np.zeros_like: like,
    np.ones_like: like,
    np.empty_like: like,
    np.full_like: like,
})
TABLE.update(library_rules.TABLE)
_LIKE_TO.update({
    np.zeros_like: (np.zeros, ("dtype", "order", "subok", "shape")),
    np.ones_like: (np.ones, ("dtype", "order", "subok", "shape")),
    np.empty_like: (np.empty, ("dtype", "order", "subok", "shape")),
    np.full_like: (np.full, ("fill_value", "dtype", "order", "subok", "shape")),
})
# Creation functions with no array argument are reached through creation.py's patch.
CREATION = {
    "zeros": filled, "ones": filled, "empty": filled, "full": filled,
    "zeros_like": like, "ones_like": like, "empty_like": like, "full_like": like,
    "arange": arange, "linspace": linspace, "eye": eye,
    "asarray": _asarray, "asanyarray": _asarray, "array": _asarray,
    "ascontiguousarray": _as_ordered, "asfortranarray": _as_ordered,
}
