"""`x[idx] = v` with integer index arrays (trace/inplace.scatter): row swaps of partial
pivoting `A[[k, p]] = A[[p, k]]` with Python ints or traced integers, a permutation's
`perm[[i, j]] = perm[[j, i]]`, fancy-index writes of scalars and arrays. NumPy's own
assignment runs as a step of the graph: no break, NumPy's values (a repeated index: the
last write wins), its errors, and the caller's array changed as NumPy changes it."""
import numpy as np
import pytest

import npcompile
from conftest import check, make
from test_trace_loops import compiled_without_fallback


def no_break():
    assert npcompile.report()["graph_breaks"] == []
    compiled_without_fallback()


def lu_pivot(A):
    """Gaussian elimination with partial pivoting in place (PA = LU)."""
    n = A.shape[0]
    perm = np.arange(n)
    for k in range(n - 1):
        p = k + np.argmax(np.abs(A[k:, k]))
        A[[k, p]] = A[[p, k]]
        perm[[k, p]] = perm[[p, k]]
        A[k + 1:, k] = A[k + 1:, k] / A[k, k]
        A[k + 1:, k + 1:] = A[k + 1:, k + 1:] - A[k + 1:, k, None] * A[None, k, k + 1:]
    return A, perm


def test_row_swaps_with_traced_pivots():
    check(lu_pivot, make((7, 7), np.float64))
    no_break()


CASES = {
    "swap_ints": lambda a: (a.__setitem__([0, 3], a[[3, 0]] * 1), a * 2)[1],
    "swap_cols": lambda a: (a.__setitem__((slice(None), [1, 2]), a[:, [2, 1]]), a + 0)[1],
    "perm": lambda a: (lambda p: (p.__setitem__([1, 4], p[[4, 1]]), p + 0)[1])(np.arange(6)),
    "scalar": lambda a: (a.__setitem__([0, 2, 5], -1.0), a * 1)[1],
    "duplicates_last_wins": lambda a: (a.__setitem__([1, 1, 2], a[:3] * 2), a + 1)[1],
    "negative": lambda a: (a.__setitem__(([-1, 0], [0, -1]), 7.0), a - 1)[1],
    "array_index": lambda a: (a.__setitem__(np.argsort(a[:, 0])[:2], 0.0), a * 2)[1],
    "traced_scalar_index": lambda a: (a.__setitem__(np.argmin(a[:, 1]), a[0] + 1), a + 0)[1],
    "int_cast": lambda a: (lambda b: (b.__setitem__([0, 1], a[:2] * 10), b + 1)[1])(
        np.zeros((6, 5), np.int32)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_index_writes_in_the_graph(name):
    check(CASES[name], make((6, 5), np.float64))
    no_break()


def test_writes_into_the_callers_array():
    def swap(a, i, j):
        a[[i, j]] = a[[j, i]]
        return a.sum(axis=1)
    check(swap, make((6, 5), np.float64), 1, 4)
    no_break()


ERRORS = {
    "out_of_range": lambda a: a.__setitem__([0, 9], 1.0),
    "traced_out_of_range": lambda a: (a.__setitem__([0, np.argmax(a[:, 0]) + 6], 1.0), a)[1],
    "shape_mismatch": lambda a: a.__setitem__([0, 1], np.ones((3, 5))),
    "float_index": lambda a: a.__setitem__([0.0, 1.0], 1.0),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_are_numpys(name):
    r = check(ERRORS[name], make((6, 5), np.float64))
    assert type(r).__name__ == "Raised"


def polar_counts(pts, nb, dtype):
    """A histogram of the points inside the unit disc: np.add.at of the selected bins."""
    r = np.hypot(pts[:, 0], pts[:, 1])
    inside = r < 1
    ri = np.minimum((r * nb).astype(np.int32), nb - 1)
    counts = np.zeros(nb, dtype=dtype)
    np.add.at(counts, ri[inside], 1)
    np.subtract.at(counts, ri[r < 0.2], 2)
    return counts * 2


@pytest.mark.parametrize("dtype", [np.int64, np.uint8, np.int32])
def test_add_at_of_selected_indices_in_the_graph(dtype):
    check(polar_counts, make((300, 2), np.float64) / 30, 8, dtype)
    no_break()


SELECTED_AT = {
    "float_counts": lambda i: (lambda c: (np.add.at(c, i[i > 2], 1), c)[1])(np.zeros(9)),
    "array_values": lambda i: (lambda c: (np.add.at(c, i[i > 2], i[i > 2]), c)[1])(
        np.zeros(9, np.int64)),
    "out_of_range": lambda i: (lambda c: (np.add.at(c, i[i > 2] + 9, 1), c)[1])(
        np.zeros(9, np.int64)),
    "empty_counts": lambda i: (lambda c: (np.add.at(c, i[i > 99], 1), c)[1])(
        np.zeros(0, np.int64)),
}


@pytest.mark.parametrize("name", sorted(SELECTED_AT))
def test_other_add_at_of_selected_indices_is_numpys(name):
    check(SELECTED_AT[name], make((30,), np.int64, 3, low=0, high=8))


WRITES = {
    "copyto": lambda a: (np.copyto(a, a[::-1] * 2), a + 1)[1],
    "copyto_where": lambda a: (np.copyto(a, 0.0, where=a > 0), a * 2)[1],
    "copyto_broadcast": lambda a: (np.copyto(a, a[0] + 1, where=np.arange(5) % 2 == 0), a)[1],
    "copyto_int_unsafe": lambda a: (lambda b: (np.copyto(b, a * 3, casting="unsafe"), b + 1)[1])(
        np.zeros((6, 5), np.int32)),
    "put": lambda a: (np.put(a, [0, 7, -1], [1.0, 2.0, 3.0]), a * 2)[1],
    "put_wrap": lambda a: (np.put(a, np.array([31, -40]), a[0, :2] * 5, mode="wrap"), a + 0)[1],
    "put_scalar": lambda a: (np.put(a, 3, -1.0), a * 1)[1],
    "triu_from": lambda a: a[:5][np.triu_indices_from(a[:5, :5], 1)] * 2,
    "tril_from": lambda a: (a.__setitem__(np.tril_indices_from(a[:, :5], -1), 0.0), a + 1)[1],
    "diag_from": lambda a: (a[:5].__setitem__(np.diag_indices_from(a[:5]), 9.0), a * 1)[1],
}


@pytest.mark.parametrize("name", sorted(WRITES))
def test_copyto_put_and_shape_indices_in_the_graph(name):
    check(WRITES[name], make((6, 5), np.float64))
    no_break()


WRITE_ERRORS = {
    "copyto_same_kind": lambda a: np.copyto(np.zeros((6, 5), np.int64), a * 1),
    "copyto_shape": lambda a: np.copyto(a, np.ones(3)),
    "put_range": lambda a: np.put(a, [0, 30], 1.0),
    "triu_from_1d": lambda a: np.triu_indices_from(a[0] * 1),
    "diag_from_rect": lambda a: np.diag_indices_from(a * 1),
}


@pytest.mark.parametrize("name", sorted(WRITE_ERRORS))
def test_write_errors_are_numpys(name):
    r = check(WRITE_ERRORS[name], make((6, 5), np.float64))
    assert type(r).__name__ == "Raised"
