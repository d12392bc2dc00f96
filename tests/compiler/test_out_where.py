"""ufunc(..., out=r, where=mask) and np.clip(..., out=): NumPy's masked and in-place
writes as new versions of the out array inside the graph (`np.divide(a, b, out=r,
where=b != 0)`, `np.clip(x, 0, 255, out=x)`): no graph break, NumPy's values (the
elements outside the mask keep what out held), the caller's array changed as NumPy
changes it; what NumPy would refuse or cast is its own call."""
import numpy as np
import pytest

import npcompile
from conftest import check, make
from test_trace_loops import compiled_without_fallback


def no_break():
    assert npcompile.report()["graph_breaks"] == []
    compiled_without_fallback()


X = make((40,), np.float64)
I = make((40,), np.int64, 1, low=-3, high=3)

CASES = {
    "safe_divide": (lambda a: np.divide(a, a - 5, out=np.zeros_like(a), where=a > 5) + 1, X),
    "divide_ones": (lambda a: np.divide(1.0, a, out=np.ones(a.shape), where=a != 0) * 2, I),
    "into_argument": (lambda a: (np.log(a, out=a, where=a > 0), a * 2)[1], X),
    "broadcast_mask": (lambda a: np.add(a.reshape(8, 5), 1, out=np.zeros((8, 5)),
                                        where=np.arange(5) % 2 == 0) * 1, X),
    "int_floor_divide": (lambda a: np.floor_divide(7, a, out=np.full_like(a, -1),
                                                   where=a != 0) + 0, I),
    "clip_in_place": (lambda a: (np.clip(a, -5, 5, out=a), a + 1)[1], X),
    "clip_returns_out": (lambda a: np.clip(a * 2, -5, 5, out=np.empty_like(a)) - 1, X),
    "clip_uint8_pixels": (lambda a: np.clip(a * 3.0, 0, 255, out=a * 1.0).astype(np.uint8), X),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_masked_and_clipped_writes_in_the_graph(name):
    fn, a = CASES[name]
    check(fn, a)
    no_break()


def test_piecewise_rates():
    """A tax rate: divide where the income is positive, zero elsewhere, clipped."""
    def rate(income):
        r = np.empty_like(income)
        np.divide(income * 0.3, income, out=r, where=income > 0)
        r[income == 0] = 0
        np.clip(r, 0, 0.45, out=r)
        return r
    check(rate, np.abs(I).astype(np.float64) * 1000)
    no_break()


ERRORS = {
    "mask_shape": lambda a: np.divide(a, 2.0, out=np.zeros_like(a), where=np.ones(3, bool)),
    "out_shape": lambda a: np.clip(a, 0, 1, out=np.zeros(3)),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_are_numpys(name):
    r = check(ERRORS[name], X)
    assert type(r).__name__ == "Raised"


def test_integer_mask_and_no_out_stay_numpys():
    check(lambda a: np.add(a, 1, out=np.zeros_like(a), where=(a > 0).astype(np.int8)), X)
    check(lambda a: (np.clip(a, 0, 1, out=np.zeros(40, np.int64)), a)[1], X)
