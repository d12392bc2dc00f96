"""How a NumPy ufunc call on lazy arrays is recorded (operators included)."""
import numpy as np

from .. import np_base as _nb
from ..dtypes import dtype_key, traced_dtype
from ..graph.node import Ref
from ..memo import Memo
from ..ops import INT_DIVISIONS

from . import inplace, lazy_array as _la
from .library_rules import matmul
from .operands import (Operands, Unsupported, as_lazy, broadcast, refuse_negative_powers,
                       resolve)

_dtype_cache = Memo()   # its keys hold the constants (value-based casting)


def _freeze_kw(kw):
    return tuple(sorted((k, v if not isinstance(v, np.dtype) else v) for k, v in kw.items()))


def _negative_powers(tracer, ops):
    """An integer power with a known negative exponent: NumPy raises ValueError at the
    call, whether or not the result is used (a kernel checks exponents it computes, but
    an unused result is never computed). One computed in the trace is checked by its
    kernel at the flush; where arrays outside the trace change as the code runs (an
    argument of a dtype not traced), its values are computed now, so that NumPy's error
    comes before what the code does next to them (fuzzer seed 5915740: a float16
    argument's masked write landed although NumPy raised at the power before it)."""
    e = ops.template[1]
    if type(e) is Ref:
        node = ops.inputs[e.i]
        if node.is_leaf:
            values = node.value
        elif tracer.untraced_arrays:
            raise Unsupported("untraced_order", "an integer power whose exponent may be "
                                                "negative, beside arrays NumPy writes as the "
                                                "code runs")
        else:
            values = None
    else:
        values = e
    refuse_negative_powers(values)


def call(tracer, ufunc, inputs, kwargs):
    """ufunc(*inputs, **kwargs) recorded; returns lazy result(s), or the out array."""
    out = kwargs.pop("out", None) if kwargs else None
    if type(out) is tuple:
        if all(o is None for o in out):
            out = None
        elif len(out) != 1:
            raise Unsupported("unsupported", f"np.{ufunc.__name__} with several out= arrays")
        else:
            out = out[0]
    where = kwargs.pop("where", True) if kwargs else True
    if where is not True and (out is None or ufunc.nout != 1):
        # without out= NumPy leaves the other elements as the new memory held them
        raise Unsupported("unsupported", f"np.{ufunc.__name__}(..., where=) without out=")
    if kwargs:
        for k in kwargs:
            if k not in ("dtype", "casting"):
                raise Unsupported("unsupported", f"np.{ufunc.__name__}(..., {k}=)")
    if ufunc.signature is not None:
        if ufunc is np.matmul and out is None and not kwargs:
            return matmul(tracer, *inputs)
        raise Unsupported("unsupported", f"generalized ufunc np.{ufunc.__name__}")
    if len(inputs) != ufunc.nin or ufunc.nin > 2:
        raise Unsupported("unsupported", f"np.{ufunc.__name__} with {len(inputs)} inputs")
    if out is not None and type(out) is not _la.LazyArray:
        raise Unsupported("inplace_untraced", f"np.{ufunc.__name__}(..., out=) into an untraced array")

    ops = Operands(tracer, inputs)
    shapes = ops.shapes + [out.shape] if out is not None else ops.shapes
    shape = broadcast(shapes) if len(shapes) > 1 else (shapes[0] if shapes else ())
    kw = kwargs or {}
    out_dt = out.dtype if out is not None else None
    key = (ufunc, ops.sig, _freeze_kw(kw) if kw else None, dtype_key(out_dt))
    try:
        dtypes = _dtype_cache.get(key)
    except TypeError:  # an unhashable constant
        key, dtypes = None, None
    if dtypes is None:
        dtypes = _resolve(ufunc, ops, kw, out_dt)
        if key is not None:
            _dtype_cache[key] = dtypes
    name = ufunc.__name__
    if ufunc is np.power and dtypes[0].kind in "iu":
        _negative_powers(tracer, ops)
    if out is not None:
        if shape != out.shape:
            raise Unsupported("error", f"non-broadcastable output operand with shape {out.shape}")
        if where is not True:
            mask = as_lazy(tracer, where)
            if mask.dtype != np.bool_ or broadcast([shape, mask.shape]) != shape:
                raise Unsupported("error", f"np.{ufunc.__name__}(..., where=): a mask NumPy "
                                           f"would refuse or cast")
            inplace.write_ufunc(tracer, out, ufunc, ops, kw, mask)
        else:
            inplace.write_ufunc(tracer, out, ufunc, ops, kw)
        return out
    if ufunc.nout == 1:
        checked = dtypes[0].kind in "iu" and (
            (ufunc is np.power and type(ops.template[1]) is Ref) or
            (ufunc.__name__ in INT_DIVISIONS and
             (type(ops.template[1]) is Ref or ops.template[1] == 0)))
        # an integer power of exponents known only at run time, or an integer division
        # by divisors that may be 0: computed even if unused (its kernel reports a
        # negative exponent or a zero divisor, and NumPy raises or warns); its node is
        # not plain ({} for kwargs), so the C++ recorder does not learn to make it unseen
        result = tracer.make(ufunc, tuple(ops.template), kw or ({} if checked else None),
                             tuple(ops.inputs), dtypes[0], shape, name, scalar=ops.all_zero_d)
        if checked:
            tracer.must_run.append(result)
        return result
    return tracer.make_multi(ufunc, tuple(ops.template), kw or None, tuple(ops.inputs), dtypes,
                             shape, name)


def outer(tracer, ufunc, a, b, **kwargs):
    """ufunc.outer(a, b) as NumPy defines it, out[i..., j...] = ufunc(a[i...], b[j...]):
    the ufunc of a, extended by b's rank of new axes, and b. Recorded as that broadcast,
    it fuses with what reads it (np.subtract.outer(x, y) ** 2 is one kernel)."""
    if ufunc.nin != 2:
        raise Unsupported("error", f"np.{ufunc.__name__}.outer needs a binary ufunc")
    x, y = as_lazy(tracer, a), as_lazy(tracer, b)
    return call(tracer, ufunc, (x[(Ellipsis,) + (None,) * y.ndim], y), kwargs)


def _resolve(ufunc, ops, kw, out_dt):
    def run(protos):
        if out_dt is not None:
            zero_d = all(getattr(p, "ndim", 0) == 0 for p in protos)
            o = _nb.zeros(() if zero_d else (0,), out_dt)
            return ufunc(*protos, out=o, **kw)
        return ufunc(*protos, **kw)
    try:
        r = resolve(run, ops)
    except Unsupported:
        raise
    except Exception as e:  # NumPy refuses these types: let NumPy raise it eagerly
        raise Unsupported("error", f"np.{ufunc.__name__}: {e}")
    got = r if isinstance(r, tuple) else (r,)
    for x in got:
        # a Python int beyond 64 bits makes NumPy 1.x compute in objects (a Python int
        # comes back): NumPy runs it
        if not isinstance(getattr(x, "dtype", None), np.dtype) or not traced_dtype(x.dtype):
            raise Unsupported("unsupported", f"np.{ufunc.__name__} computes in "
                              f"{getattr(x, 'dtype', type(x).__name__)} here")
    return tuple(np.dtype(x.dtype) for x in got)
