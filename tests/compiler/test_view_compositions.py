"""np.split and its kin, np.atleast_Nd and np.rot90 as the views NumPy makes
(trace/view_compositions.py): no graph break, NumPy's values, shapes and types (a list
of pieces, a tuple of np.atleast_Nd results on NumPy 2), and a write through a piece
reaches the array it is a view of, as in NumPy."""
import numpy as np
import pytest

import npcompile
from conftest import check, make
from test_trace_loops import compiled_without_fallback


def no_break():
    assert npcompile.report()["graph_breaks"] == []
    compiled_without_fallback()


A = make((6, 4, 3), np.float64)

CASES = {
    "split": lambda a: [p * 2 for p in np.split(a + 1, 3)],
    "split_indices": lambda a: [p + 1 for p in np.split(a * 1, [1, 4, 9], axis=1)],
    "array_split": lambda a: [p.sum(axis=0) for p in np.array_split(a * 2, 4)],
    "array_split_negative": lambda a: [p * 1 for p in np.array_split(a + 0, [-2], axis=-1)],
    "hsplit": lambda a: [p - 1 for p in np.hsplit(a * 1, 2)],
    "hsplit_1d": lambda a: [p * 3 for p in np.hsplit(a[:, 0, 0] + 1, 3)],
    "vsplit": lambda a: [p + 2 for p in np.vsplit(a[:, :, 0] * 1, [2])],
    "dsplit": lambda a: [p * 2 for p in np.dsplit(a + 1, 3)],
    "atleast_1d": lambda a: np.atleast_1d(a.sum() * 2) + 1,
    "atleast_2d": lambda a: np.atleast_2d(a[0, 0] * 2) + 1,
    "atleast_3d_many": lambda a: [x * 1 for x in np.atleast_3d(a[0] * 1, a[0, 0], a.sum(), a)],
    "atleast_2d_many": lambda a: np.atleast_2d(a[0, 0] + 1, a[0] * 1),
    "rot90": lambda a: np.rot90(a * 2) + 1,
    "rot90_k": lambda a: [np.rot90(a + 0, k) * 1 for k in (-1, 0, 2, 3, 5)],
    "rot90_axes": lambda a: np.rot90(a * 1, 1, axes=(2, 0)) + 1,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_views_in_the_graph(name):
    check(CASES[name], A)
    no_break()


def test_a_write_through_a_piece_reaches_the_array():
    def f(a):
        top, bottom = np.split(a, 2)
        top[...] = 0.0
        r = np.rot90(bottom)
        r[0] += 100.0
        np.atleast_2d(a[0, 0])[0] -= 7.0
        return a * 1
    check(f, A.copy())
    no_break()


ERRORS = {
    "unequal": lambda a: np.split(a * 1, 4),
    "sections_zero": lambda a: np.array_split(a * 1, 0),
    "vsplit_1d": lambda a: np.vsplit(a[:, 0, 0] * 1, 2),
    "rot90_same_axes": lambda a: np.rot90(a * 1, axes=(1, 1)),
    "rot90_1d": lambda a: np.rot90(a[:, 0, 0] * 1),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_are_numpys(name):
    r = check(ERRORS[name], A)
    assert type(r).__name__ == "Raised"
