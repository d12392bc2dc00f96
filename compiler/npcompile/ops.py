"""What each NumPy operation is, declared once, for every layer that asks: the tracer
(which rule records it, how its arguments bind, whether a 0-d result is a NumPy
scalar), the fusion (pointwise, reduction, view), the engine (is a graph worth a
compile). A pointwise op's C++ and CUDA renderings are in codegen/cpp_ops.py under
the same names; a library call's result shapes in trace/library_rules.SHAPES.
Depends on NumPy only."""
from typing import NamedTuple

import numpy as np


class Reduction(NamedTuple):
    kernel: str       # the kernels' reduction (and the report's label)
    params: tuple     # the function's parameters after the array, in order
    identity: bool    # defined on an empty axis (sum: 0); min and argmin raise there


_AXIS_DTYPE = ("axis", "dtype", "out", "keepdims")
_EXTREMES = ("axis", "out", "keepdims", "initial", "where")
REDUCTIONS = {
    "sum": Reduction("sum", _AXIS_DTYPE + ("initial", "where"), True),
    "prod": Reduction("prod", _AXIS_DTYPE + ("initial", "where"), True),
    "mean": Reduction("mean", _AXIS_DTYPE, True),
    "std": Reduction("std", ("axis", "dtype", "out", "ddof", "keepdims"), True),
    "var": Reduction("var", ("axis", "dtype", "out", "ddof", "keepdims"), True),
    "amin": Reduction("min", _EXTREMES, False),
    "amax": Reduction("max", _EXTREMES, False),
    "min": Reduction("min", _EXTREMES, False),     # np.min is np.amin in NumPy 1.x
    "max": Reduction("max", _EXTREMES, False),
    "argmin": Reduction("argmin", ("axis", "out"), False),
    "argmax": Reduction("argmax", ("axis", "out"), False),
    "any": Reduction("any", ("axis", "out", "keepdims"), True),
    "all": Reduction("all", ("axis", "out", "keepdims"), True),
}
# the NumPy functions themselves (np.min and np.amin are one function in NumPy 1.x)
REDUCTION_OF = {getattr(np, name): name for name in REDUCTIONS}

# ufunc.reduce that the tracer records, and the kernels' reduction for those the
# fusion computes inline (None: it runs as a NumPy step)
UFUNC_REDUCTIONS = {"add": "sum", "multiply": "prod", "maximum": "max", "minimum": "min",
                    "logical_and": None, "logical_or": None, "fmax": None, "fmin": None,
                    "bitwise_and": None, "bitwise_or": None, "bitwise_xor": None,
                    "logaddexp": None, "logaddexp2": None}

# Cumulative scans: the running application of a binary ufunc along one axis, in order
# (NumPy's accumulate: out[0] = x[0], out[i] = f(out[i-1], x[i])). np.cumsum and np.cumprod
# are add's and multiply's (in the dtype NumPy picks for them); ufunc.accumulate of these
# ufuncs is computed by the CPU kernels with the ufunc's own rendering (codegen/cpp_ops.py),
# so the running values are NumPy's to the bit; any other runs as a NumPy step.
SCANS = {np.cumsum: "add", np.cumprod: "multiply"}
SCAN_UFUNCS = frozenset({"add", "subtract", "multiply", "maximum", "minimum", "fmax", "fmin",
                         "logical_and", "logical_or", "logical_xor", "bitwise_and",
                         "bitwise_or", "bitwise_xor"})


def scan_ufunc(fn):
    """The name of the binary ufunc whose running application fn is (np.cumsum: add,
    np.maximum.accumulate: maximum), or None where fn is not a scan the kernels compute."""
    try:
        got = SCANS.get(fn)
    except TypeError:   # an unhashable callable: no scan
        return None
    if got is not None:
        return got
    name = getattr(fn, "__name__", "")
    owner = getattr(fn, "__self__", None)
    if name == "accumulate" and isinstance(owner, np.ufunc) and owner.__name__ in SCAN_UFUNCS:
        return owner.__name__
    return None


# integer divisions that NumPy checks for a zero divisor (0, and its divide-by-zero
# warning or error): the kernels flag one (codegen/cpp_ops.py), the tracer computes them
# even where unused (trace/ufunc_rules.py)
INT_DIVISIONS = frozenset(("floor_divide", "remainder", "fmod"))

# ufuncs the kernels compute elementwise (codegen/cpp_ops.py renders each)
POINTWISE_UFUNCS = frozenset({
    "add", "subtract", "multiply", "true_divide", "divide", "floor_divide", "remainder",
    "fmod", "power", "maximum", "minimum", "fmax", "fmin", "less", "less_equal", "greater",
    "greater_equal", "equal", "not_equal", "logical_and", "logical_or", "logical_xor",
    "logical_not", "bitwise_and", "bitwise_or", "bitwise_xor", "invert", "negative",
    "positive", "absolute", "sign", "square", "reciprocal", "sqrt", "exp", "log", "sin", "cos",
    "tan", "tanh", "arcsin", "arccos", "arctan", "sinh", "cosh", "exp2", "expm1", "log1p",
    "log2", "log10", "cbrt", "floor", "ceil", "trunc", "rint", "arctan2", "hypot", "copysign",
    "isnan", "isinf", "isfinite", "signbit", "conjugate",
})

# ufuncs the kernels compute on complex operands (codegen/cpp_complex.py renders each, in
# NumPy's own formulas: Smith's division, its SIMD loop's abs, libm's cexp and kin); the rest
# (power, ordering comparisons, sign, log10, ...) run in NumPy
COMPLEX_UFUNCS = frozenset({
    "add", "subtract", "multiply", "true_divide", "divide", "negative", "positive",
    "conjugate", "absolute", "square", "reciprocal", "equal", "not_equal", "isnan", "isinf",
    "isfinite", "sqrt", "exp", "log", "sin", "cos", "tan", "sinh", "cosh", "tanh",
})
# the parts of a complex array: views in NumPy, read as elementwise ops by a kernel
COMPLEX_PARTS = {np.real: "real", np.imag: "imag"}

# views: the result reads its input's memory through strides (no kernel computes them)
VIEW_LABELS = frozenset({"getitem", "reshape", "transpose", "swapaxes", "squeeze",
                         "expand_dims", "broadcast_to", "moveaxis"})


def reduces(fn):
    """Does a call of fn reduce its first input (reading each element once)?"""
    name = getattr(fn, "__name__", "")
    return (name in REDUCTIONS or fn is np.linalg.norm or
            (name == "reduce" and isinstance(getattr(fn, "__self__", None), np.ufunc)))


# NumPy's library reductions and quantiles, run as NumPy steps of a graph (their shapes:
# trace/library_rules.py): a 0-d result of them is a NumPy scalar, as a reduction's is
LIBRARY_REDUCTIONS = ("median", "nanmedian", "ptp", "average", "nansum", "nanprod", "nanmean",
                      "nanmax", "nanmin", "nanstd", "nanvar", "nanargmax", "nanargmin")
QUANTILES = ("percentile", "quantile", "nanpercentile", "nanquantile")
_LIBRARY_SCALARS = frozenset(getattr(np, n) for n in LIBRARY_REDUCTIONS + QUANTILES) | {np.trace}


def returns_numpy_scalar(fn):
    """Does NumPy hand back a NumPy scalar, not a 0-d array, for a 0-d result of fn?
    (True for ufuncs, reductions and the library's reductions; False for the other calls
    a graph records. np.median(x).astype(np.int32) came back a 0-d array: fuzzer seed
    9600590.)"""
    if isinstance(fn, np.ufunc):
        return True
    return reduces(fn) or fn in _LIBRARY_SCALARS
