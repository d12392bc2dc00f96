"""Dtypes and layouts the kernels do not compute in, and NumPy's in-place reshape, against
eager NumPy: byte-swapped arrays (read as native they gave wrong numbers) and long double
results run in NumPy and the trace goes on from them (float16 is compiled:
test_float16.py); `a.shape = ...`, np.ascontiguousarray and np.asfortranarray are
traced."""
import numpy as np
import pytest

import npcompile
from conftest import DEVICE, check, make
from test_trace_loops import COMPILED, compiled_without_fallback


def swapped_input(a):
    return a * 2 + 1


def swapped_inside(n):
    return np.arange(n, dtype=">f8") + 1


def swapped_astype(a):
    return (a.astype(">i4") + 1) * 2.0


@pytest.mark.parametrize("dtype", [">f8", ">i4", "<f4", ">u2"])
def test_byte_swapped_arrays_give_numpys_values(dtype):
    a = make((5, 3), np.dtype(dtype).newbyteorder("="), 1).astype(dtype)
    check(swapped_input, a)
    check(swapped_inside, 4)
    check(swapped_astype, a)


def set_shape(x):
    y = x * 2
    y.shape = (2, -1)
    y[0, 1] = 5
    return y + 1


def set_shape_of_a_transpose(x):
    y = x.T
    y.shape = (-1,)              # NumPy: only a view may change shape in place
    return y


def test_setting_the_shape():
    check(set_shape, make((3, 4), np.float64))
    compiled_without_fallback()
    check(set_shape, make((3,), np.float32))            # ValueError: 3 into (2, -1)
    check(set_shape_of_a_transpose, make((3, 4), np.float64))   # AttributeError


def ordered(x):
    A = np.asfortranarray(x.reshape(6, 4) + 1)
    B = np.ascontiguousarray(A.T)
    C = np.ascontiguousarray(x[:5])      # a contiguous slice: NumPy returns the view
    C[0] = 99
    D = np.ascontiguousarray(x[::2])     # a copy: the write stays there
    D[1] = -7
    return A * 2, B, C, D, np.asfortranarray(x[3]), x


def test_contiguous_and_fortran_arrays_are_traced():
    check(ordered, make((24,), np.float64))
    compiled_without_fallback()
    assert npcompile.report()["graph_breaks"] == []


def test_an_untraced_argument_is_said_not_silent():
    """A byte-swapped or long double argument runs in NumPy (issue 15: nothing silent):
    one fallback line per argument and dtype, and explain says why calls do not replay."""
    npcompile.reset()
    j = npcompile.jit(lambda a, b: (a + 1).sum() + b.sum())
    for _ in range(3):
        j(np.arange(4, dtype=">f8"), np.arange(3, dtype=np.longdouble))
    reasons = [f["reason"] for f in npcompile.report()["fallbacks"]]
    assert len(reasons) == 2, reasons
    assert "the argument a (>f8) is not traced: its bytes are in non-native order" in reasons[0]
    assert "the argument b (float128) is not traced" in reasons[1]
    text = str(npcompile.explain(j)(np.arange(4, dtype=">f8"), np.ones(2)))
    assert "the argument a is an array of dtype >f8, not traced" in text


@pytest.mark.parametrize("fn", [
    lambda x: (x.sum() * 2).astype(np.int32),
    lambda x: (np.sum(x) + 1.5).astype(np.float32).astype(np.int64),
    lambda x: x.max().copy() + 0,
    lambda x: (x[0] * 2).astype(np.int16),
    lambda x: np.median(x).astype(np.int32),
    lambda x: (np.percentile(x, 50).astype(np.float32), np.nanmean(x).copy()),
    lambda x: np.trace(np.outer(x, x)).astype(np.int8),
], ids=["sum-astype", "astype-chain", "copy", "element-astype", "median-astype",
        "quantile-nanmean", "trace-astype"])
def test_astype_of_a_scalar_is_a_scalar(fn):
    """A 0-d astype (or copy) of a NumPy scalar made in the same kernel is a NumPy scalar,
    as in NumPy: the op that made it decides, not its value, which a fused kernel never
    makes (it came back a 0-d array: found by make fuzz). The library's reductions too
    (np.median's astype: fuzzer seed 9600590)."""
    check(fn, make((5,), np.float64))
    compiled_without_fallback()


def test_astype_of_a_0d_argument_follows_its_type():
    f = lambda x: x.astype(np.int32) + 0    # noqa: E731
    check(f, np.float64(2.5))
    check(f, np.array(2.5))
