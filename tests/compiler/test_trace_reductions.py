"""Reductions with axis (int, tuple, None), keepdims and dtype=, as methods and functions."""
import numpy as np
import pytest

from conftest import DTYPES, check, layouts, make
from test_trace_loops import compiled_without_fallback

FUNCS = ["sum", "prod", "mean", "std", "var", "min", "max", "argmin", "argmax", "any", "all"]
AXES = [None, 0, 1, -1, (0, 2), (1,), (0, 1, 2)]


@pytest.mark.parametrize("name", FUNCS)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_reduction_axes(name, dtype):
    x = make((3, 4, 5), dtype, low=-3, high=3)
    fn = getattr(np, name)
    for axis in AXES:
        if name in ("argmin", "argmax") and isinstance(axis, tuple):
            continue
        check(lambda a: fn(a, axis=axis), x)
        check(lambda a: getattr(a, name)(axis=axis), x)
        if name not in ("argmin", "argmax") or np.lib.NumpyVersion(np.__version__) >= "1.22.0":
            check(lambda a: fn(a, axis=axis, keepdims=True), x)


@pytest.mark.parametrize("name", FUNCS)
def test_reduction_layouts(name):
    for lay, x in layouts((6, 5), np.float64).items():
        check(lambda a: getattr(np, name)(a, axis=0), x)
        check(lambda a: getattr(np, name)(a), x)


def test_dtype_and_ddof_and_positional_axis():
    x = make((4, 6), np.int8)
    check(lambda a: np.sum(a, dtype=np.int8), x)
    check(lambda a: a.sum(1, np.int16), x)
    check(lambda a: np.mean(a, 0, np.float32), x)
    check(lambda a: np.std(a, axis=1, ddof=1), x)
    check(lambda a: a.var(ddof=2), x.astype(np.float32))
    check(lambda a: np.add.reduce(a), x)
    check(lambda a: np.maximum.reduce(a, axis=1), x)


def test_nan_in_min_max_and_empty():
    x = np.array([[1.0, np.nan, 3.0], [4.0, 5.0, 6.0]])
    for name in ("min", "max", "argmin", "argmax", "sum", "mean"):
        check(lambda a: getattr(np, name)(a, axis=1), x)
        check(lambda a: getattr(np, name)(a), x)
    e = np.zeros((0, 3))
    check(lambda a: a.sum(axis=0), e)
    check(lambda a: a.max(axis=0), e)          # NumPy raises: so must we
    check(lambda a: a.max(axis=1), e)
    check(lambda a: a.mean(axis=0), e)


def test_reductions_feed_pointwise_and_back():
    X = make((50, 3), np.float64)

    def f(x):
        m = x.mean(axis=0)
        s = x.std(axis=0)
        return (x - m) / s, m.sum(), (x > m).all(axis=1)
    check(f, X)


def test_norm_where_clip_astype():
    X = make((10, 2), np.float32)
    means = make((3, 2), np.float32, seed=2)
    check(lambda x, m: np.argmin(np.linalg.norm(x - m[:, None], axis=2), axis=0), X, means)
    check(lambda x: np.linalg.norm(x, axis=1), X)
    check(lambda x: np.linalg.norm(x[:, 0]), X)
    check(lambda x: np.linalg.norm(x), X)
    check(lambda x: np.linalg.norm(x, ord=1, axis=0), X)
    check(lambda x: np.where(x > 0, x, 0), X)
    check(lambda x: np.where(x > 0, x, np.inf), X)
    check(lambda x: np.where(x[:, 0] > 0, -x[:, 1], 7), X)
    check(lambda x: np.clip(x, -1, 1), X)
    check(lambda x: x.clip(-0.5, None), X)
    check(lambda x: np.clip(x, x[:, :1], 2.0), X)
    for dt in (np.int8, np.uint16, np.float64, np.bool_, np.int64):
        check(lambda x: x.astype(dt), X)
        check(lambda x: (x * 3).astype(dt) + 1, X)


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64])
@pytest.mark.parametrize("shape", [(4, 4), (4, 7), (5000, 4), (4, 5000)])
def test_max_and_min_of_a_negation(dtype, shape):
    """ptxas of CUDA 13.0 miscompiled an unrolled 32-bit max/min chain over negated
    values (codegen/cuda.py _acc_type): (-a).max(axis=1) of int32 gave wrong rows."""
    a = make(shape, dtype, seed=3)
    check(lambda v: (-v).max(axis=1), a)
    check(lambda v: (-v).min(axis=1), a)
    check(lambda v: (-v).max(axis=0), a)


def _with_infs(n, where, value):
    a = np.linspace(-1.0, 1.0, n)
    a[list(where)] = value
    return a


INF_CASES = {
    "overflow": (lambda a: a.sum(), np.full(10000, 1e308)),
    "overflow_var": (lambda a: a.var(), np.array([1e200, -1e200] * 5001)),
    "inf_mean": (lambda a: a.mean(), np.array([np.inf, 1.0] * 600)),
    "both_infs": (lambda a: a.sum(), _with_infs(5000, [3, 4000], np.inf) * np.r_[1.0, -1.0].repeat(2500)),
    "neg_inf_late": (lambda a: a.sum(), _with_infs(70000, [69000], -np.inf)),
    "rows": (lambda a: a.reshape(50, -1).sum(axis=1), _with_infs(50000, [10, 20000], np.inf)),
    "float32": (lambda a: a.sum(), np.full(3000, 3e38, np.float32)),
}


@pytest.mark.parametrize("name", sorted(INF_CASES))
def test_sums_that_reach_inf_are_inf_as_in_numpy(name):
    """Compensated sums: once the running sum is inf the compensation is not inf - inf."""
    fn, a = INF_CASES[name]
    check(fn, a)
    compiled_without_fallback()
