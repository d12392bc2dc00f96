"""np.array / np.asarray of lists and tuples that hold traced values (an ODE's right-hand
side built from the components of its state, a history a loop appended to): stacked in
the graph with NumPy's dtype, shape and errors, and no graph break."""
import numpy as np
import pytest

import npcompile
from conftest import check, make
from test_trace_loops import compiled_without_fallback


def lorenz(s):
    x, y, z = s
    return np.array([10 * (y - x), x * (28 - z) - y, x * y - 8 / 3 * z]) * 1.0


CASES = {
    "components": lorenz,
    "mixed_python_numbers": lambda v: np.array([v[0] * 2, 1, 2.5]) + 1,
    "python_int_with_int32": lambda v: np.array([v.astype(np.int32)[0], 7]) * 3,
    "given_dtype": lambda v: np.array([v[0], v[1] + 0.7], dtype=np.int64) + 1,
    "rows": lambda v: np.array([v, v * 2, v - 1]).sum(axis=0),
    "nested": lambda v: np.array([[v[0], v[1]], [v[2], 1.0]]) @ np.ones(2),
    "tuple_asarray": lambda v: np.asarray((v[0], v[1])) * 2,
    "float32_items": lambda v: np.array([v.astype(np.float32)[0], np.float32(2)]) + 1,
    "bool_items": lambda v: np.array([v[0] > 0, v[1] > 0]) & True,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_array_of_traced_items(name):
    check(CASES[name], make((3,), np.float64))
    assert npcompile.report()["graph_breaks"] == []
    compiled_without_fallback()


def history(cells, steps):
    hist = [cells]
    for _ in range(steps):
        cells = (np.roll(cells, 1) ^ (cells | np.roll(cells, -1))).astype(np.uint8)
        hist.append(cells)
    return np.array(hist)


@pytest.mark.parametrize("steps", [3, 12])
def test_a_loops_history(steps):
    cells = np.zeros(17, np.uint8)
    cells[8] = 1
    check(history, cells, steps)
    assert npcompile.report()["graph_breaks"] == []


def test_ragged_lists_raise_numpys_error():
    check(lambda v: np.array([v, v[:2]]) + 1, make((3,), np.float64))


def test_an_object_item_is_left_to_numpy():
    def f(v):
        return np.array([v[0], "a"])
    check(f, make((3,), np.float64))
