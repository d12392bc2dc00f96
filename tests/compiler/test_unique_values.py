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


def with_index(y):
    return np.unique(y, return_index=True)      # NumPy's call, a break


def test_other_uses_and_options_are_numpys():
    y = make((80,), np.int64) % 5
    check(iterated, y)
    check(with_index, y)
    check(with_counts, np.zeros(0))             # empty: NumPy's own call
    check(values, np.array([1 + 2j, 1 + 2j, 3j]))   # complex: NumPy's own call
    npcompile.reset()
    npcompile.jit(with_index, device=DEVICE, choose=False)(y)
    assert any(b["reason"].startswith("np.unique") for b in breaks()), breaks()


def with_counts(y):
    return np.unique(y, return_counts=True)


def frequent(y):
    v, c = np.unique(y, return_counts=True, equal_nan=True, axis=None)
    return v[c > 1], c.max(), c.sum(), c.size, (c * v).sum()


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.uint8, np.bool_])
def test_counts_are_a_selection_of_the_same_mask(dtype):
    """return_counts: at each value the next value's position less its own (NumPy's diff
    of the positions), a selection beside the values; `v[c > 1]` selects both again."""
    for x in (make((90,), np.int64) % 6, make((1,), np.int64), make((40,), np.int64) % 2):
        check(with_counts, x.astype(dtype))
        check(frequent, x.astype(dtype))
        assert breaks() == [], breaks()
    y = np.array([np.nan, 1.0, np.nan, -0.0, 0.0, 2.0, 2.0, np.nan]).astype(dtype) \
        if np.dtype(dtype).kind == "f" else None
    if y is not None:
        got = npcompile.jit(with_counts, device=DEVICE, choose=False)(y)
        got = tuple(g.get() if isinstance(g, npcompile.DeviceArray) else g for g in got)
        exp = np.unique(y, return_counts=True)
        assert np.array_equal(got[0], exp[0], equal_nan=True)
        assert np.array_equal(np.signbit(got[0]), np.signbit(exp[0]))
        assert np.array_equal(got[1], exp[1]) and got[1].dtype == exp[1].dtype


def test_a_cell_gets_numpys_array():
    ns = {"np": np, "y": make((300,), np.int64) % 9}
    npcompile.run_cell("classes = np.unique(y)\n", ns)
    exp = np.unique(ns["y"])
    assert type(ns["classes"]) is np.ndarray and np.array_equal(ns["classes"], exp)
    assert ns["classes"].dtype == exp.dtype
