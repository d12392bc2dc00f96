"""Dtypes and layouts the kernels do not compute in, and NumPy's in-place reshape, against
eager NumPy: byte-swapped arrays (read as native they gave wrong numbers), float16 and
long double results run in NumPy and the trace goes on from them; `a.shape = ...`,
np.ascontiguousarray and np.asfortranarray are traced."""
import numpy as np
import pytest

import npcompile
from conftest import DEVICE, check, make
from test_trace_loops import compiled_without_fallback


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


def half_results(a):
    c = np.cos(a)                # int8 -> float16 in NumPy
    return c * 2 + a, c.astype(np.float32) * a + 1


def half_input(h, x):
    return h * 2 + x, x * 3 - 1


@pytest.mark.parametrize("dtype", [np.int8, np.float16])
def test_float16_runs_in_numpy_and_the_trace_goes_on(dtype):
    check(half_results, make((4, 6), dtype, 2, low=-5, high=5))
    compiled_without_fallback(kernels=dtype is not np.float16)   # a float16 input: NumPy
    check(half_input, make((7,), np.float16), make((7,), np.float64, 3))
    compiled_without_fallback()


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
