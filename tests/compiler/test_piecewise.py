"""np.piecewise traced as NumPy computes it (trace/piecewise.py): elementwise pieces
stay in the graph as masked writes, fused; other pieces make NumPy's compact selection
(a break) and keep NumPy's values; a piece that selects nothing is not called, as in
NumPy; errors are NumPy's."""
import numpy as np
import pytest

import npcompile
from conftest import check, make
from test_trace_loops import compiled_without_fallback


def no_break():
    assert npcompile.report()["graph_breaks"] == []
    compiled_without_fallback()


X = make((50,), np.float64)
I = make((6, 7), np.int64, 1)

CASES = {
    "two_pieces": (lambda x: np.piecewise(x * 1, [x < 0, x >= 0],
                                          [lambda v: -v, lambda v: v ** 2]), X),
    "otherwise": (lambda x: np.piecewise(x, [x < -10, x > 10],
                                         [-1.0, 1.0, lambda v: v / 10]) + 1, X),
    "constants": (lambda x: np.piecewise(x + 0, [x < 0], [0, 1]) * 2, X),
    "ufuncs": (lambda x: np.piecewise(x, [np.abs(x) < 5], [np.sin, np.cos]) + 0, X),
    "int_2d": (lambda a: np.piecewise(a * 2, [a % 2 == 0],
                                      [lambda v: v // 2, lambda v: 3 * v + 1]), I),
    "extra_args": (lambda x: np.piecewise(x, [x < 0], [lambda v, k: v * k, 0.0], 3.0) - 1, X),
    "tax_smooth": (lambda x: np.piecewise(np.abs(x) * 1e4, [np.abs(x) < 5, np.abs(x) >= 5],
                                          [lambda v: v ** 2 / 1e5, lambda v: v - 25000]), X),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_piecewise_in_the_graph(name):
    fn, a = CASES[name]
    check(fn, a)
    no_break()


def test_a_piece_that_reads_its_elements_is_numpys():
    # v.mean() of the compact x[cond] is NumPy's own, a step of the graph
    # (trace/selected_reductions.py): no break
    check(lambda x: np.piecewise(x, [x < 0], [lambda v: v - v.mean(), 7.0]), X)
    no_break()


def test_a_piece_selecting_nothing_is_not_called():
    check(lambda x: np.piecewise(x, [x > 1e9], [lambda v: v[0] * np.ones(v.shape), 1.0]), X)


ERRORS = {
    "count": lambda x: np.piecewise(x, [x < 0], [1.0, 2.0, 3.0]),
    "piece_raises": lambda x: np.piecewise(x, [x < 0], [lambda v: v[1000], 1.0]),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_are_numpys(name):
    r = check(ERRORS[name], X)
    assert type(r).__name__ == "Raised"
