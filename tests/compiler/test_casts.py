"""float -> int casts and integer powers on the compiled path, with NumPy's semantics:
in-range values are computed in the kernel; NaN, out-of-range values and negative
integer exponents make the kernel report them and the graph rerun in NumPy."""
import os

import numpy as np
import pytest

import npcompile
from npcompile.backends import cpu
from conftest import check, make

INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


def compiled_kernels():
    return [k for k in npcompile.report()["kernels"] if k["target"] == "cpu"]


def fallbacks():
    return npcompile.report()["fallbacks"]


on_cpu = pytest.mark.skipif(not cpu.AVAILABLE or os.environ.get("NPC_BACKEND") == "reference",
                            reason="compiled CPU path not in use")


@pytest.mark.parametrize("src", [np.float32, np.float64])
@pytest.mark.parametrize("dst", INTS)
def test_in_range_casts_compile_and_truncate(src, dst):
    info = np.iinfo(dst)
    lo, hi = max(float(info.min), -1e6), min(float(info.max), 1e6)
    a = np.random.default_rng(0).uniform(lo, hi, 5000).astype(src)
    a[:6] = [0.0, -0.0, 0.999, -0.999 if info.min < 0 else 0.5, 2.5, lo + 0.5]
    check(lambda x: (x * 1.0).astype(dst) + 1, a)


@on_cpu
def test_in_range_cast_runs_in_a_kernel():
    a = make((1000,), np.float64)
    check(lambda x: (x * 2).astype(np.int32), a)
    assert compiled_kernels() and not fallbacks()


@pytest.mark.parametrize("src", [np.float32, np.float64])
@pytest.mark.parametrize("dst", INTS)
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf, 1e30, -1e30, 300.0, -1.0, 2.0 ** 31,
                                 -2.0 ** 31 - 1e3, 2.0 ** 63, 2.0 ** 64])
def test_out_of_range_and_nan_casts_give_numpys_answer(src, dst, bad):
    a = make((100,), src)
    a[37] = bad
    check(lambda x: (x + 0).astype(dst), a)


@on_cpu
def test_an_out_of_range_cast_reruns_in_numpy():
    a = make((100,), np.float64)
    a[5] = np.nan
    check(lambda x: (x + 0).astype(np.int64), a)
    assert fallbacks() and "out-of-range" in fallbacks()[0]["reason"]


@pytest.mark.parametrize("dt", INTS)
@pytest.mark.parametrize("p", [0, 1, 3, 7, 13])
def test_integer_power_by_a_constant_wraps_like_numpy(dt, p):
    check(lambda x: x ** p, make((300,), dt, low=-9, high=9))


@pytest.mark.parametrize("dt", INTS)
def test_integer_power_by_an_array(dt):
    base = make((400,), dt, low=-20, high=20)
    exp = make((400,), dt, 1, low=0, high=40)
    check(lambda x, y: np.power(x, y), base, exp)
    check(lambda x, y: x ** y, base, exp)


@pytest.mark.parametrize("dt", [np.int8, np.int32, np.int64])
def test_negative_integer_exponent_raises_like_numpy(dt):
    base = make((50,), dt, low=1, high=5)
    exp = make((50,), dt, 1, low=0, high=5)
    exp[7] = -1
    check(lambda x, y: x ** y, base, exp)
