"""NumPy functions recorded as NumPy steps inside the graph (trace/library_rules.py):
no graph break, NumPy's values, dtypes and errors, and what is around them compiles."""
import numpy as np
import pytest

import npcompile
from conftest import DTYPES, check, make


@pytest.mark.parametrize("dtype", DTYPES)
def test_cumulative(dtype):
    a = make((4, 5), dtype)
    check(lambda x: np.cumsum(x * 1), a)
    check(lambda x: np.cumsum(x, axis=1) + 1, a)
    check(lambda x: np.cumprod(x[:2] % 3, axis=0), a)
    check(lambda x: np.cumsum(x, axis=-1, dtype=np.float64) * 0.5, a)


@pytest.mark.parametrize("dtype", DTYPES)
def test_diff(dtype):
    """np.diff is traced as NumPy writes it (trace/composite_rules.py): views and a ufunc."""
    a = make((5, 6), dtype)
    check(lambda x: np.diff(x), a)
    check(lambda x: np.diff(x, n=2, axis=0) * 2, a)
    check(lambda x: np.diff(x, n=0), a)
    check(lambda x: np.diff(x[:, :1], n=3), a)   # an axis shorter than n: empty
    check(lambda x: np.diff(x, prepend=0), a)
    check(lambda x: np.diff(x, axis=0, append=x[-1:]), a)


def test_diff_errors_are_numpys():
    check(lambda x: np.diff(x, n=-1), make((4,), np.float64))
    check(lambda x: np.diff(x, axis=3), make((4,), np.float64))
    check(lambda x: np.diff(x.sum()), make((4,), np.float64))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("ufunc", [np.maximum, np.minimum, np.add, np.multiply])
def test_ufunc_accumulate(ufunc, dtype):
    a = make((4, 5), dtype)
    check(lambda x: ufunc.accumulate(x * 1), a)
    check(lambda x: ufunc.accumulate(x, axis=1) + 1, a)
    check(lambda x: ufunc.accumulate(x[:, 0], dtype=np.float64) - 1, a)


def test_accumulate_is_a_step_not_a_break():
    def drawdown(p):
        peak = np.maximum.accumulate(p)
        return ((peak - p) / peak).max()
    e = npcompile.explain(drawdown)(np.abs(make((50,), np.float64)) + 1)
    assert e.graph_break_count == 0 and e.graph_count == 1, e
    check(lambda a: np.maximum.accumulate(a, axis=2), make((3, 3), np.float64))  # no axis 2
    check(lambda a: np.maximum.accumulate(a.sum()), make((3, 3), np.float64))    # 0-d


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_solve_and_inv(dtype):
    A = (make((4, 4), dtype, seed=1) % 7 + 10 * np.eye(4)).astype(dtype)
    b = make((4,), dtype, seed=2)
    B = make((4, 3), dtype, seed=3)
    check(lambda a, v: np.linalg.solve(a * 2, v + 1), A, b)
    check(lambda a, m: np.linalg.solve(a, m) @ m.T, A, B)
    check(lambda a: np.linalg.inv(a + 1) * 3, A)


def test_errors_are_numpys():
    check(lambda a: np.linalg.inv(a - a), make((3, 3), np.float64))    # singular
    check(lambda a: np.cumsum(a, axis=2), make((3, 3), np.float64))     # no such axis


def test_no_break_and_the_rest_compiles():
    def f(x, A, b):
        c = np.cumsum(x * 2, axis=0)
        return c.sum() + np.diff(x, axis=1).mean(), np.linalg.solve(A + np.eye(3), b * 2)
    x = make((4, 5), np.float64)
    A = make((3, 3), np.float64, seed=1) * 0.1
    e = npcompile.explain(f)(x, A, np.arange(3.0))
    assert e.graph_break_count == 0 and e.graph_count == 1, e
