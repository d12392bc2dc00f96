"""np.median of a float64 slice inside a compiled loop nest (codegen/scalar_nest_vectors.py
_median): a running-median filter compiled as one function, NumPy's values to the bit
(odd and even windows, matrices in C order, expressions of slices, signed zeros: NumPy's
median is a mean, a sum from 0.0, so a zero median is +0.0), and the nest stopping for a
NaN among the elements and an empty window, where NumPy answers."""
import os

import numpy as np
import pytest

import npcompile
from npcompile.backends import cpu
from conftest import DEVICE, check
from test_native_loop import corpus

pytestmark = pytest.mark.skipif(not cpu.AVAILABLE or DEVICE == "cuda" or
                                os.environ.get("NPC_BACKEND") == "reference",
                                reason="compiled loop nests need the CPU backend")


# the corpus's running-median despiking loop (bench/programs/rolling_median_filter.py)
rolling = corpus("rolling_median_filter")


def of_columns(A):
    out = np.empty(A.shape[1])
    for j in range(A.shape[1]):
        out[j] = np.median(A[:, j]) + np.median(A[1:, :j + 1])
    return out


def deviations(x, w):
    out = np.zeros(x.size)
    for i in range(x.size - w + 1):
        out[i] = np.median(np.abs(x[i:i + w] - x[i]))
    return out


def _ran_native():
    return any("runs as one compiled function" in r["summary"]
               for r in npcompile.report()["loops"])


def _bits(fn, *args):
    """check(), then the signs of zeros too (check compares values)."""
    got = npcompile.jit(fn, choose=False)(*args)
    exp = fn(*args)
    assert np.array_equal(got, exp, equal_nan=True) and got.dtype == exp.dtype
    assert np.array_equal(np.signbit(got), np.signbit(exp))


@pytest.mark.parametrize("k", [0, 1, 2, 3, 40])
def test_a_running_median_compiles_as_one_function(k):
    x = np.random.default_rng(k).standard_normal(301)
    check(rolling, x, k)
    npcompile.reset()
    _bits(rolling, x, k)
    assert _ran_native(), [r["summary"] for r in npcompile.report()["loops"]]


def test_matrices_and_expressions_of_slices():
    rng = np.random.default_rng(1)
    check(of_columns, rng.standard_normal((9, 7)))
    assert _ran_native()
    npcompile.reset()
    check(deviations, rng.standard_normal(500), 8)      # even windows: (a + b) / 2
    assert _ran_native()


@pytest.mark.parametrize("x", [
    np.array([0.0, -0.0, 0.0, -0.0, 1.0, -0.0, 0.0]),                # zeros of both signs
    np.array([-0.0, -0.0, 2.0, -0.0]),                               # a zero median: +0.0
    np.array([7.0])])
def test_signed_zeros_and_one_element_compiled(x):
    check(rolling, x, 1)
    npcompile.reset()
    _bits(rolling, x, 1)
    assert _ran_native()


@pytest.mark.parametrize("x", [
    np.where(np.arange(60) % 11 == 0, np.nan, np.arange(60.0)),     # NaN: NumPy's NaN
    np.array([])])
def test_a_nan_or_nothing_stops_the_nest_and_numpy_answers(x):
    check(rolling, x, 1)
    npcompile.reset()
    _bits(rolling, x, 1)
