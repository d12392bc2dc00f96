"""`x[mask] = v` with a whole-array mask and one value (fusion/expr.py
Lowering._masked_fill): np.where(mask, v, x) inside the kernel, not a NumPy step;
NumPy's values, casts, errors and in-place writes to the caller's array."""
import os

import numpy as np
import pytest

import npcompile
from npcompile.backends import cpu
from conftest import DEVICE, DTYPES, check, make

COMPILED = cpu.AVAILABLE and os.environ.get("NPC_BACKEND") != "reference" and DEVICE == "cpu"


def threshold(x):
    y = x * 2
    y[y > 0.5] = 0
    return y


def into_the_argument(x, m):
    x[m] = 7
    return x


def with_a_reduction(x):
    y = x * 3
    y[y < 0] = y.max()
    return y


def float_into_int(x):
    y = (x * 10).astype(np.int64)
    y[y > 5] = 2.7         # NumPy's unsafe cast (NaN would raise): NumPy's step
    return y


def out_of_range_into_uint8(x):
    y = (x * 10).astype(np.uint8)
    y[y > 5] = -3          # NumPy 2 raises OverflowError, NumPy 1.x wraps
    return y


def nan_into_int(x):
    y = (x * 10).astype(np.int64)
    y[y > 5] = np.nan
    return y


@pytest.mark.parametrize("dtype", DTYPES)
def test_every_dtype(dtype):
    check(threshold, make((40, 9), dtype))
    check(into_the_argument, make((40,), dtype), make((40,), np.float64) > 0)


@pytest.mark.parametrize("fn", [with_a_reduction, float_into_int, nan_into_int,
                                out_of_range_into_uint8])
def test_values_casts_and_errors(fn):
    check(fn, make((300,), np.float64))


@pytest.mark.skipif(not COMPILED, reason="compiled CPU path not in use")
@pytest.mark.parametrize("fn", [threshold, with_a_reduction])
def test_the_fill_runs_in_the_kernel(fn):
    npcompile.reset()
    npcompile.jit(fn, choose=False)(make((300,), np.float64))
    rep = npcompile.report()
    assert rep["fallbacks"] == []
    assert not any("runs in NumPy" in d for d in rep["fusion_graphs"][-1]["decisions"]), \
        rep["fusion_graphs"][-1]["decisions"]
