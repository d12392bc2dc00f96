"""np.select as a chain of np.where in the graph (fused): NumPy's dtype for the choices
and the default, the first condition that holds winning, NumPy's errors."""
import numpy as np
import pytest

import npcompile
from conftest import Raised, check, make
from test_trace_loops import compiled_without_fallback

F = make((4, 6), np.float64)
F32 = make((4, 6), np.float32, 1)
U8 = make((4, 6), np.uint8, 2)
I = make((4, 6), np.int32, 3, low=-9, high=9)


def no_break():
    assert npcompile.report()["graph_breaks"] == []
    compiled_without_fallback()


CASES = {
    "two": lambda x: np.select([x > 5, x < -5], [x * 2, x - 1]) + 1,
    "default": lambda x: np.select([x > 0], [x + 1], default=-1) * 2,
    "float_default": lambda x: np.select([x > 0, x > 3], [x, x * 3], 0.5),
    "overlapping": lambda x: np.select([x > 0, x > 3, x > 6], [1, 2, 3], default=x),
    "broadcast": lambda x: np.select([x[:1] > 0, x[:, :1] < 0], [x[0] * 2, 7], x[:, 0:1]),
    "constants": lambda x: np.select([x > 0], [np.arange(6)], default=2 ** 40),
    "tuples": lambda x: np.select((x > 1,), (np.sqrt(np.abs(x * 1.0)),)) - 1,
    "bool": lambda x: np.select([x > 1, x < 0], [x > 4, True], default=False) | (x == 0),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_select(name):
    for a in (F, F32, U8, I):
        npcompile.reset()
        if not isinstance(check(CASES[name], a), Raised):   # int64 7 into uint8 raises
            no_break()


def test_0d_choices():
    """On NumPy 1.x a 0-d choice's dtype depends on its value: that call is NumPy's."""
    check(lambda x: np.select([x > 0], [x.sum()], default=x[0, 0]), F32)
    check(lambda x: np.select([x > 0], [x * 1], default=np.array(300)), U8)
    check(lambda x: np.select([x.sum() > 0], [x.max()]), F)


def test_numpys_errors():
    check(lambda x: np.select([x > 0, x < 0], [x]), F)                    # lengths
    check(lambda x: np.select([], []), F)                                 # empty
    check(lambda x: np.select([x], [x * 2]), F)                           # not boolean
    check(lambda x: np.select([x > 0], [x[:2] * 2]), F)                   # shapes
    check(lambda x: np.select([x > 0], [x * 2], default=300), U8)         # 2.x: overflow
    check(lambda x: np.select([x > 0], [x * 2], default="a"), F)          # no common dtype
