"""np.linalg beyond the decompositions as steps of the graph (trace/linalg_library.py,
the matrix norms of function_rules.norm): slogdet, matrix_rank, lstsq of no more rows
than columns, norms of matrices of any order. No graph break, NumPy's values, dtypes,
shapes, scalar types and errors; lstsq of more rows than columns is NumPy's own call."""
import numpy as np
import pytest

import npcompile
from conftest import check, make
from test_trace_loops import compiled_without_fallback


def no_break():
    assert npcompile.report()["graph_breaks"] == []
    compiled_without_fallback()


S = make((5, 5), np.float64) + 40 * np.eye(5)
W = make((3, 6), np.float64, 1)
T = make((6, 3), np.float64, 2)

CASES = {
    "slogdet": (lambda a: np.linalg.slogdet(a * 2), S),
    "slogdet_sum": (lambda a: sum(np.linalg.slogdet(a + 1)) * 2, S),
    "slogdet_stack": (lambda a: np.linalg.slogdet(np.stack([a, a.T]) * 1), S),
    "det_scalar": (lambda a: np.linalg.det(a * 2) + 1, S),
    "matrix_rank": (lambda a: np.linalg.matrix_rank(a * 2) + 1, S),
    "matrix_rank_deficient": (lambda a: np.linalg.matrix_rank(np.outer(a[0], a[1]) * 1), S),
    "lstsq_square": (lambda a: np.linalg.lstsq(a * 1, a[0], rcond=None)[0] + 1, S),
    "lstsq_wide": (lambda a: [r * 1 for r in np.linalg.lstsq(a + 0, a[:, 0], rcond=None)], W),
    "lstsq_wide_2d": (lambda a: np.linalg.lstsq(a * 2, a[:, :2], rcond=None)[0] - 1, W),
    "norm_2": (lambda a: np.linalg.norm(a * 1, 2) + 1, W),
    "norm_1": (lambda a: np.linalg.norm(a * 1, 1) + np.linalg.norm(a, -1), W),
    "norm_inf": (lambda a: np.linalg.norm(a * 1, np.inf) * 2, S),
    "norm_nuc": (lambda a: np.linalg.norm(a + 1, "nuc") * 2, W),
    "norm_2_axes": (lambda a: np.linalg.norm(a * 1, 2, axis=(1, 0)) * 2, W),
    "norm_neg2_keep": (lambda a: np.linalg.norm(a * 1, -2, axis=(0, 1), keepdims=True), T),
    "norm_vector_2": (lambda a: np.linalg.norm(a * 1, 2, axis=1) + 1, W),
    "solve_stack": (lambda a: np.linalg.solve(np.stack([a, a.T]) * 1, np.ones((2, 5, 3))), S),
    "solve_stack_broadcast": (lambda a: np.linalg.solve(a * 1, np.ones((4, 5, 2))) + 1, S),
    "solve_stack_vectors": (lambda a: np.linalg.solve(np.stack([a, a.T]) * 1,
                                                      np.ones((2, 5))) + 1, S),
    "inv_stack": (lambda a: np.linalg.inv(np.stack([a, a.T, a + 1]) * 2) - 1, S),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_linalg_in_the_graph(name):
    fn, a = CASES[name]
    r = check(fn, a)
    if name == "solve_stack_vectors" and np.lib.NumpyVersion(np.__version__) >= "2.0.0":
        assert type(r).__name__ == "Raised"     # NumPy 2: b of 2 dimensions is matrices
        return
    no_break()


def test_lstsq_of_a_tall_matrix_is_numpys_call():
    check(lambda a, b: np.linalg.lstsq(a * 1, b, rcond=None), T, T[:, 0] + 1)
    assert any("lstsq" in b["reason"] for b in npcompile.report()["graph_breaks"])


ERRORS = {
    "slogdet_not_square": lambda a: np.linalg.slogdet(a * 1),
    "det_not_square": lambda a: np.linalg.det(a * 1),
    "lstsq_mismatch": lambda a: np.linalg.lstsq(a * 1, np.ones(4), rcond=None),
    "norm_bad_ord": lambda a: np.linalg.norm(a * 1, 3),
    "solve_not_square": lambda a: np.linalg.solve(a * 1, np.ones(3)),
    "solve_mismatch": lambda a: np.linalg.solve(np.stack([a.T @ a] * 2), np.ones((2, 4))),
    "inv_not_square": lambda a: np.linalg.inv(np.stack([a, a]) * 1),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_are_numpys(name):
    r = check(ERRORS[name], W)
    assert type(r).__name__ == "Raised"
