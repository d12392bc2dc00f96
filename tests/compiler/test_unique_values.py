"""np.unique(x), its values alone (trace/masked_select.py unique_values): x sorted as
NumPy sorts it, selected where each value differs from the one before (NaNs as one, as
NumPy's equal_nan). Lazy like x[m]: its size and reductions are graph values, a returned
one is the graph's last step; every other use is NumPy's array after one break at the
line that asked. Values, dtype, shape, signed zeros and NaNs are NumPy's."""
import numpy as np
import pytest

import npcompile
from conftest import DEVICE, check, make
from test_trace_loops import COMPILED


def breaks():
    rep = npcompile.report()
    return rep["graph_breaks"] + rep["fallbacks"]


def values(x):
    return np.unique(x)


def counted(x):
    u = np.unique(x * 2)
    return u.size, u.sum(), u.max(), u.shape[0] + 1


def labels(y):
    classes = np.unique(y)
    return classes, classes.size


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int16, np.uint8,
                                   np.bool_])
def test_returned_unique_values_are_numpys_without_a_break(dtype):
    x = (make((6, 40), np.int64) % 7).astype(dtype)
    check(values, x)
    check(labels, x.ravel())
    assert breaks() == [], breaks()


@pytest.mark.parametrize("data", [[np.nan, 1.0, -0.0, 0.0, np.nan, 1.0], [0.0, -0.0],
                                  [-0.0, 0.0, -0.0], [np.nan], [np.inf, -np.inf, np.nan, 5.0],
                                  [3.0]])
def test_nans_are_one_and_signed_zeros_are_numpys(data):
    x = np.array(data)
    got = npcompile.jit(values, device=DEVICE, choose=False)(x)
    got = got.get() if isinstance(got, npcompile.DeviceArray) else got
    exp = np.unique(x)
    assert got.shape == exp.shape and got.dtype == exp.dtype
    assert np.array_equal(got, exp, equal_nan=True)
    assert np.array_equal(np.signbit(got), np.signbit(exp))


def then_graph(x):
    u = np.unique(x // 4)
    return x * 2 + u.size, u + 1


@pytest.mark.skipif(not COMPILED or DEVICE == "cuda", reason="replay plans are the CPU's")
def test_a_call_replays_whatever_the_count():
    """Its size is a graph value and a returned one is made compact last: a call replays
    with data of other counts (an eager np.unique traced again at each new count)."""
    j = npcompile.jit(then_graph, choose=False)
    for c in (13, 13, 7, 7, 13):
        x = np.arange(40) % c
        got, exp = j(x), then_graph(x)
        assert all(np.array_equal(g, e) and g.dtype == e.dtype for g, e in zip(got, exp))
    replays = sum(1 for t in npcompile.report()["traces"] if t.get("replay"))
    assert replays == 4 and breaks() == [], (replays, breaks())


def test_the_count_and_reductions_are_graph_values():
    check(counted, make((500,), np.int64) % 11)
    assert breaks() == [], breaks()
    if COMPILED:
        assert sum(c["kernels"] for c in npcompile.report()["compiles"]) >= 1


def iterated(y):
    total = 0.0
    for k in np.unique(y):          # iteration: NumPy's array, one break here
        total += float(k)
    return total


def with_counts(y):
    return np.unique(y, return_counts=True)     # NumPy's call, a break


def test_other_uses_and_options_are_numpys():
    y = make((80,), np.int64) % 5
    check(iterated, y)
    check(with_counts, y)
    check(values, np.zeros(0))                  # empty: NumPy's own call
    check(values, np.array([1 + 2j, 1 + 2j, 3j]))   # complex: NumPy's own call
    npcompile.reset()
    npcompile.jit(with_counts, device=DEVICE, choose=False)(y)
    assert any(b["reason"].startswith("np.unique") for b in breaks()), breaks()


def test_a_cell_gets_numpys_array():
    ns = {"np": np, "y": make((300,), np.int64) % 9}
    npcompile.run_cell("classes = np.unique(y)\n", ns)
    exp = np.unique(ns["y"])
    assert type(ns["classes"]) is np.ndarray and np.array_equal(ns["classes"], exp)
    assert ns["classes"].dtype == exp.dtype
