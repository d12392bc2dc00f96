"""ufunc.at (np.add.at and the rest): NumPy's unbuffered scatter inside the graph, as a
new version of the array it writes, against eager NumPy: duplicate indices accumulate,
negative indices wrap, an index out of range is NumPy's IndexError, and a caller's
array is written in place."""
import numpy as np
import pytest

import npcompile
from conftest import check, make
from test_trace_loops import compiled_without_fallback


def histogram_by_hand(x, bins):
    idx = np.clip(((x + 30) / 60 * bins).astype(np.int64), 0, bins - 1)
    counts = np.zeros(bins, dtype=np.int64)
    np.add.at(counts, idx, 1)
    sums = np.zeros(bins)
    np.add.at(sums, idx, x * 2)
    return counts, sums / np.maximum(counts, 1)


def into_argument(acc, idx, v):
    np.subtract.at(acc, idx, v * 0.5)
    np.maximum.at(acc, idx[::2], 3.0)
    return acc.sum()


def rows(A, idx):
    out = np.zeros((4, A.shape[1]), A.dtype)
    np.add.at(out, idx, A + 1)
    np.negative.at(out, [0, 0, 2])      # a unary ufunc: applied once per occurrence
    return out


@pytest.mark.parametrize("n", [0, 1, 50])
def test_duplicate_indices_accumulate(n):
    check(histogram_by_hand, make((n,), np.float64), 7)
    compiled_without_fallback()
    assert npcompile.report()["graph_breaks"] == []


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32])
def test_into_a_callers_array_with_negative_indices(dtype):
    idx = np.array([0, -1, 3, 3, -1, 2])
    check(into_argument, make((5,), dtype), idx, make((6,), dtype, 1))
    compiled_without_fallback()
    assert npcompile.report()["graph_breaks"] == []


def test_rows_and_unary_ufuncs():
    check(rows, make((5, 3), np.float64), np.array([0, 3, 3, 1, 0]))
    compiled_without_fallback()


def constant_index(a):
    acc = np.zeros(4)
    np.add.at(acc, 2, a[:3].sum() * 1.5)     # an int index, a float value: no break
    np.add.at(acc, [0, 0], a[:2] * 2)
    return acc


def test_a_constant_index():
    check(constant_index, make((5,), np.float64))
    compiled_without_fallback()
    assert npcompile.report()["graph_breaks"] == []


def test_numpys_errors():
    check(into_argument, make((5,), np.float64), np.array([0, 9]), make((2,), np.float64))
    check(into_argument, make((5,), np.float64), np.array([0.0, 1.0]), make((2,), np.float64))
    check(rows, make((5, 3), np.float64), np.array([0, 3]))       # shapes do not broadcast


def test_what_runs_in_numpy():
    def tuple_index(a):
        out = np.zeros((3, 3))
        np.add.at(out, (np.array([0, 1, 1]), np.array([2, 2, 0])), a[:3] * 1)
        return out

    def untraced_target(a):
        out = np.zeros(3)             # np.zeros is traced: out is too
        plain = np.array([1.0, 2.0, 3.0]).copy()
        np.add.at(plain, np.array([0, 0]), a[:2] * 2)
        return plain + out
    check(tuple_index, make((5,), np.float64))
    check(untraced_target, make((5,), np.float64))
