"""Reductions with where= and initial= (`np.sum(x, where=m)`, `np.mean(x, where=m)`,
`x.max(initial=0)`) as NumPy's own reduction, a step inside the graph: no break, NumPy's
values, dtypes, shapes and scalar types; NumPy's errors (a mask without initial= for
min and max, a function that takes no mask)."""
import numpy as np
import pytest

from conftest import check
from test_library_calls import A, I, no_break

CASES = {
    "sum_where": lambda a: np.sum(a * 2, where=a > 0) + 1,
    "sum_where_axis": lambda a: np.sum(a + 1, axis=0, where=a > 0) * 2,
    "mean_where": lambda a: np.mean(a * 1, axis=1, where=a != 0) + 1,
    "prod_initial": lambda a: np.prod(a[:2] + 1, initial=2) * 1,
    "max_initial": lambda a: np.max(a * 2, initial=3) + 1,
    "max_where_initial": lambda a: a.max(axis=1, where=a < 0, initial=-100) * 2,
    "min_where_broadcast": lambda a: np.min(a + 0, axis=0, where=np.arange(5) % 2 == 0,
                                            initial=50, keepdims=True) - a,
    "std_where": lambda a: np.std(a * 1, where=a > -5) + 1,
    "any_where": lambda a: np.any(a > 3, axis=0, where=a < 8) | False,
    "add_reduce_where": lambda a: np.add.reduce(a * 1, axis=1, where=a > 0) + 1,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_masked_reductions_in_the_graph(name):
    for a in (A, I):
        check(CASES[name], a)
        no_break()


ERRORS = {
    "max_where_no_initial": lambda a: np.max(a * 1, where=a > 0),
    "argmax_where": lambda a: np.argmax(a * 1, where=a > 0),
    "mask_shape": lambda a: np.sum(a * 1, where=np.ones(3, bool)),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_are_numpys(name):
    r = check(ERRORS[name], A)
    assert type(r).__name__ == "Raised"
