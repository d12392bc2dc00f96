"""ufunc.outer as the ufunc of a broadcast (it fuses), ufunc.reduce of logaddexp as a
NumPy step: no graph break, NumPy's values, dtypes, scalar types and errors."""
import numpy as np
import pytest

import npcompile
from conftest import check, make
from test_trace_loops import compiled_without_fallback

X = make((5,), np.float32)
Y = make((3,), np.int64, 1)
M = make((2, 3), np.float64, 2)


def no_break():
    assert npcompile.report()["graph_breaks"] == []
    compiled_without_fallback()


OUTER = {
    "add": lambda x, y: np.add.outer(x * 1, y) * 2,
    "subtract_2d": lambda x, y: np.subtract.outer(x + 1, np.ones((2, 2))) ** 2,
    "multiply_0d": lambda x, y: np.multiply.outer(x[0] * 2, y) + 1,
    "maximum_list": lambda x, y: np.maximum.outer(x * 1, [1, 2, 3]) - 1,
    "divmod": lambda x, y: [r * 1 for r in np.divmod.outer(x * 3, y + 10)],
    "greater": lambda x, y: np.greater.outer(x * 1, y) & True,
    "dtype": lambda x, y: np.add.outer(x * 1, y, dtype=np.float32) + 1,
}


@pytest.mark.parametrize("name", sorted(OUTER))
def test_outer(name):
    for x, y in ((X, Y), (M, X), (Y, Y)):
        npcompile.reset()
        check(OUTER[name], x, y)
        no_break()


def test_outer_of_scalars_is_a_scalar():
    check(lambda x, y: np.add.outer(x.sum(), y.sum()), X, Y)
    assert npcompile.report()["graph_breaks"] == []


def test_outer_errors():
    check(lambda x, y: np.negative.outer(x, y), X, Y)        # ValueError: a unary ufunc
    check(lambda x, y: np.add.outer(x, y, casting="no", dtype=np.int8), X, Y)


def test_logaddexp_reduce():
    for a in (M, X, make((0, 3), np.float64)):
        for f in (lambda x: np.logaddexp.reduce(x * 1) + 1,
                  lambda x: np.logaddexp.reduce(x * 2, axis=-1, keepdims=True) - x,
                  lambda x: np.logaddexp2.reduce(x + 1, axis=None) * 2):
            npcompile.reset()
            check(f, a)
            no_break()
    check(lambda x: np.logaddexp.reduce(x * 1, axis=2), M)    # AxisError
