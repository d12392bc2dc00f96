"""min, max, argmin and argmax in the CPU's two vectorizable passes (codegen/
cpp_extrema.py): NumPy's first extreme, its first NaN, its sign of a zero tie, on every
axis and dtype, computed in a kernel (no NumPy step, no fallback)."""
import os

import numpy as np
import pytest

import npcompile
from npcompile.backends import cpu
from conftest import DEVICE, DTYPES, check, make

COMPILED = cpu.AVAILABLE and os.environ.get("NPC_BACKEND") != "reference" and DEVICE == "cpu"

OPS = {
    "max": lambda x, **kw: np.max(x * 1, **kw),
    "min": lambda x, **kw: np.min(x * 1, **kw),
    "argmax": lambda x, **kw: np.argmax(x * 1, **kw),
    "argmin": lambda x, **kw: np.argmin(x * 1, **kw),
}


def _signed(a):
    """Values with the sign of zeros made visible (NaN equal to NaN)."""
    a = np.asarray(a)
    if a.dtype.kind != "f":
        return a
    return np.where(np.isnan(a), np.inf, a), np.signbit(a)


def exact(fn, *args, kernel=True, **kw):
    got = npcompile.jit(lambda *a: fn(*a, **kw), choose=False)(*args)
    want = fn(*args, **kw)
    assert type(got) is type(want) and np.asarray(got).dtype == np.asarray(want).dtype
    for g, w in zip(_signed(got) if np.asarray(got).dtype.kind == "f" else (got,),
                    _signed(want) if np.asarray(want).dtype.kind == "f" else (want,)):
        np.testing.assert_array_equal(g, w)
    if COMPILED and kernel:
        rep = npcompile.report()
        assert rep["fallbacks"] == [], rep["fallbacks"]
        graph = rep["fusion_graphs"][-1]
        assert not any("runs in NumPy" in d for d in graph["decisions"]), graph["decisions"]


@pytest.mark.parametrize("dtype", [d for d in DTYPES if np.dtype(d).kind in "iuf"])
@pytest.mark.parametrize("op", sorted(OPS))
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_every_dtype_and_axis(op, axis, dtype):
    check(lambda x: OPS[op](x, axis=axis), make((37, 53), dtype))


def _specials(dtype):
    rng = np.random.default_rng(7)
    x = rng.standard_normal((9, 40)).astype(dtype)
    x[1, 5] = x[1, 17] = np.nan                 # a NaN wins at its first place
    x[2, :] = np.nan
    x[3, :] = 0.0
    x[3, 7] = -0.0                              # zeros: the first met decides the sign
    x[4, :] = -0.0
    x[4, 30] = 0.0
    x[5, 3] = np.inf
    x[5, 9] = np.inf                            # ties: the first
    x[6, 11] = -np.inf
    x[7, :] = x[7, 0]                           # all equal
    return x


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("op", sorted(OPS))
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_nans_zeros_infinities_and_ties(op, axis, dtype):
    # (argmin/argmax of a whole 2-d array stays NumPy's step: its values are checked)
    with np.errstate(invalid="ignore"):
        exact(OPS[op], _specials(dtype), axis=axis,
              kernel=not (axis is None and op.startswith("arg")))


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int64, np.uint64])
@pytest.mark.parametrize("op", sorted(OPS))
def test_integer_limits(op, dtype):
    info = np.iinfo(dtype)
    x = np.array([[3, info.max, 1, info.max], [info.min, 0, info.min, 5]], dtype)
    exact(OPS[op], x, axis=1)
    exact(OPS[op], x, axis=None, kernel=not op.startswith("arg"))


@pytest.mark.parametrize("op", ["max", "min"])
def test_keepdims_and_large_arrays(op):
    x = make((3, 200_000), np.float64)
    exact(OPS[op], x, axis=1, keepdims=True)
    exact(OPS[op], x.ravel())


def test_empty_raises_numpys_error():
    check(lambda x: np.argmax(x * 2, axis=1), np.zeros((3, 0)))
    check(lambda x: np.max(x * 2), np.zeros(0))


@pytest.mark.skipif(not COMPILED, reason="compiled CPU path not in use")
def test_the_kernel_walks_without_a_branch_per_element():
    """Pass 1 is branch-free (an integer max of ordered keys and a NaN flag)."""
    npcompile.reset()
    npcompile.jit(lambda x: np.argmin(x * 2, axis=1), choose=False)(make((8, 64), np.float64))
    src = npcompile.report()["kernel_sources"][-1]["source"]
    assert "__builtin_bit_cast(i64" in src and "goto found" in src, src
