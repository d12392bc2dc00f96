"""Operands of a recorded call: lazy arrays become node references, scalars stay
constants, and tiny prototypes of each operand let NumPy itself decide dtypes."""
import warnings

import numpy as np

from ..memo import Memo
from ..dtypes import dtype_key, traced_array, traced_dtype
from .. import np_base as _nb

from ..graph.node import Ref
from . import lazy_array as _la

from .operand_types import NUMPY2, SCALAR_TYPES, Unsupported, proto  # noqa: F401 (re-exported)


class Operands:
    """The operands of one call, split into what the graph and the dtype rules need."""

    __slots__ = ("template", "inputs", "shapes", "sig", "protos_of", "all_zero_d", "zero_d_lazy")

    def __init__(self, tracer, values):
        template, inputs, shapes, sig = [], [], [], []
        zero_d_lazy = []
        all_zero_d = True
        for v in values:
            t = type(v)
            if t is not _la.LazyArray and t is np.ndarray:
                if not traced_dtype(v.dtype):
                    raise Unsupported("unsupported", f"operand of dtype {v.dtype}")
                v = tracer.wrap_constant_array(v)
                t = _la.LazyArray
            if t is _la.LazyArray:
                node = v._n
                template.append(Ref(len(inputs)))
                inputs.append(node)
                shape = node.shape
                shapes.append(shape)
                zd = len(shape) == 0
                sig.append((node.dtype, zd, dtype_key(node.dtype)))
                if zd:
                    zero_d_lazy.append(len(template) - 1)
                else:
                    all_zero_d = False
            elif v is None or isinstance(v, SCALAR_TYPES):
                template.append(v)
                sig.append((t, v))
            elif isinstance(v, (list, tuple)):
                arr = _nb.asarray(v)
                if not traced_dtype(arr.dtype):
                    raise Unsupported("unsupported", "operand is a sequence of non-numbers")
                lz = tracer.wrap_constant_array(arr)
                node = lz._n
                template.append(Ref(len(inputs)))
                inputs.append(node)
                shapes.append(node.shape)
                sig.append((node.dtype, arr.ndim == 0, dtype_key(node.dtype)))
                all_zero_d = all_zero_d and arr.ndim == 0
            else:
                raise Unsupported("unsupported", f"operand of type {t.__name__}")
        self.template = template
        self.inputs = inputs
        self.shapes = shapes
        self.sig = tuple(sig)
        self.all_zero_d = all_zero_d
        self.zero_d_lazy = zero_d_lazy

    def protos(self, zero_d_values=None):
        out = []
        k = 0
        for item, s in zip(self.template, self.sig):
            if type(item) is Ref:
                dt, zd, _ = s
                if zd and zero_d_values is not None:
                    out.append(zero_d_values[k])
                    k += 1
                else:
                    out.append(proto(dt, zd))
            else:
                out.append(item)
        return out


def value_based_candidates(dtype):
    """Values that span what NumPy 1.x's value-based casting can distinguish."""
    if dtype.kind == "b":
        return [_nb.array(False), _nb.array(True)]
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return [_nb.array(v, dtype) for v in (0, info.min, info.max, -1 if dtype.kind == "i" else 1)]
    if dtype.kind == "f":
        info = np.finfo(dtype)
        return [_nb.array(v, dtype) for v in (0.0, info.max, -info.max, np.inf, np.nan)]
    if dtype.kind == "c":   # a NaN or a part past complex64's range keeps complex128
        info = np.finfo(dtype)
        return [_nb.array(v, dtype) for v in (0, complex(np.nan, np.nan), complex(info.max, 0))]
    return [_nb.array(0, dtype)]


def resolve(call, ops):
    """Result of `call(*prototypes)`: NumPy decides the dtypes. Under NumPy 1.x a 0-d
    operand mixed with arrays is value-based: if its value could change the answer,
    the trace must break to read it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            first = call(ops.protos())
            if NUMPY2 or not ops.zero_d_lazy or ops.all_zero_d:
                return first
            ref = _dtypes_of(first)
            dts = [ops.sig[i][0] for i in ops.zero_d_lazy]
            for i, dt in enumerate(dts):
                for cand in value_based_candidates(dt):
                    values = [proto(d, True) for d in dts]
                    values[i] = cand
                    if _dtypes_of(call(ops.protos(values))) != ref:
                        raise Unsupported("value_dtype",
                                          "result dtype depends on a 0-d value (NumPy 1.x casting)")
            return first


def _dtypes_of(r):
    if isinstance(r, tuple):
        return tuple(x.dtype for x in r)
    return r.dtype



_shape_cache = Memo()


def broadcast(shapes):
    key = tuple(shapes)
    r = _shape_cache.get(key)
    if r is None:
        try:
            r = np.broadcast_shapes(*shapes)
        except ValueError as e:
            raise Unsupported("error", str(e))
        _shape_cache[key] = r
    return r


def as_lazy(tracer, a):
    if type(a) is _la.LazyArray:
        return a
    if traced_array(a):
        return tracer.wrap_constant_array(a)
    arr = _nb.asarray(a)
    if not traced_dtype(arr.dtype):
        raise Unsupported("unsupported", f"input of dtype {arr.dtype}")
    return tracer.wrap_constant_array(arr)


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            return fn(*args, **kwargs)


def refuse_negative_powers(exponent):
    """An integer power with a known negative exponent (a constant or an array whose
    values the trace holds): NumPy raises ValueError at the call, used or not (a
    kernel checks the exponents it computes; an unused result is never computed)."""
    if (type(exponent) is np.ndarray or isinstance(exponent, (int, np.integer))) and \
            np.any(_nb.asarray(exponent) < 0):
        raise Unsupported("error", "integers to negative integer powers are not allowed")
