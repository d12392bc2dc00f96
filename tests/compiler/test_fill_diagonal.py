"""np.fill_diagonal writes into its first argument and returns None: a new version of
that array in the graph (NumPy's own function run on it), so the caller's array, views
of it and what reads it after see the write, with no graph break."""
import numpy as np
import pytest

import npcompile
from conftest import check, make
from test_trace_loops import compiled_without_fallback

SQUARE = make((5, 5), np.float64)
TALL = make((7, 3), np.int32, 1)
WIDE = make((3, 6), np.float32, 2)
CUBE = make((3, 3, 3), np.int64, 3)


def no_break():
    assert npcompile.report()["graph_breaks"] == []
    compiled_without_fallback()


def into_argument(a):
    r = np.fill_diagonal(a, 7)
    return a * 2, r


def into_computed(a):
    b = a + 1
    np.fill_diagonal(b, a[0, 0] * 3)
    return b.sum(axis=0), b


def repeated_values(a):
    b = a * 1
    np.fill_diagonal(b, [1, -2])        # NumPy repeats them along the diagonal
    return b


def wrapped(a):
    b = a - 1
    np.fill_diagonal(b, 0.5, wrap=True)    # a tall matrix's diagonal starts again
    return b


def through_a_view(a):
    b = a * 2
    np.fill_diagonal(b[1:, ::2], 9)
    return b


def values_from_the_trace(a):
    b = np.zeros_like(a)
    np.fill_diagonal(b, a[0] + 1)
    return b


@pytest.mark.parametrize("fn", [into_argument, into_computed, repeated_values, wrapped,
                                through_a_view, values_from_the_trace])
def test_fill_diagonal(fn):
    for a in (SQUARE, TALL, WIDE, CUBE):
        if fn is through_a_view and a is CUBE:
            continue
        npcompile.reset()
        check(fn, a.copy())
        no_break()


def test_casts_as_numpy():
    def cast(a):
        np.fill_diagonal(a, 2.9)        # truncated into integers
        return a
    check(cast, TALL.copy())
    check(cast, make((4, 4), np.bool_))


def test_numpys_errors():
    def one_d(a):
        np.fill_diagonal(a[0], 1)

    def unequal(a):
        np.fill_diagonal(a[None], 1)

    def read_only(a):
        np.fill_diagonal(np.broadcast_to(a[0], (3, 3)), 1)
    for fn in (one_d, unequal, read_only):
        check(fn, SQUARE.copy())
