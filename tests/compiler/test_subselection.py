"""A selection indexed by a mask made from itself, `d = d[np.abs(d - mu) < 3 * sd]`
(sigma clipping, trace/masked_select.subselected): x selected by both masks, a lazy
selection again, so a loop of such rounds is one graph without breaks. Checked against
eager NumPy, and that the graph compiled and later calls replay it at other counts."""
import numpy as np
import pytest

import npcompile
from conftest import DEVICE, check
from test_trace_loops import COMPILED


def sigma_clip(x, rounds):
    d = x[np.isfinite(x)]
    for _ in range(rounds):
        mu, sd = d.mean(), d.std()
        d = d[np.abs(d - mu) < 3 * sd]
    return d.mean(), d.std(), d.size, d


def nested(x):
    y = x[x > 0]
    z = y[y < 1]
    return z.sum(), z * 2, y[y >= 1]


def positions_kept(x):
    i = np.nonzero(x > 0)[0]
    return i[i % 2 == 0], np.flatnonzero(x)[np.flatnonzero(x) > 3]


def int_rows(a):
    v = a[a > 2]
    return v[v % 3 == 0], v[v % 3 == 0].sum()


def _data(n, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n)
    x[rng.integers(0, n, max(1, n // 50))] += 25.0
    x[::97] = np.nan
    return x


def _no_breaks():
    rep = npcompile.report()
    assert rep["graph_breaks"] == [] and rep["fallbacks"] == [], \
        (rep["graph_breaks"], rep["fallbacks"])
    return rep


@pytest.mark.parametrize("n", [1, 5, 300, 5000])
def test_sigma_clipping_rounds_are_one_graph(n):
    x = _data(n, n)
    check(sigma_clip, x, 4)
    npcompile.reset()
    f = npcompile.jit(sigma_clip, device=DEVICE, choose=False)
    for seed in range(3):       # other data: other counts at every round
        x = _data(n, seed + 10)
        got, exp = f(x, 4), sigma_clip(x, 4)
        d = got[3].get() if isinstance(got[3], npcompile.DeviceArray) else got[3]
        np.testing.assert_allclose(d, exp[3])
        assert got[2] == exp[2] and type(got[2]) is int
    rep = _no_breaks()
    if COMPILED:
        assert rep["compiles"] and len(rep["compiles"]) <= 2
    if COMPILED and DEVICE == "cpu":        # (replay plans are the CPU's)
        assert any(t.get("replay") for t in rep["traces"])


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_a_selection_of_a_selection_is_numpys(dtype):
    x = (_data(400, 3) * 4).astype(dtype) if dtype != np.int32 else \
        np.random.default_rng(1).integers(-5, 9, 400).astype(dtype)
    if dtype != np.int32:
        x = np.nan_to_num(x)
    check(nested, x)
    _no_breaks()
    check(int_rows, np.arange(40, dtype=dtype) % 11)
    _no_breaks()


def test_nonzero_positions_selected_again():
    x = np.where(np.arange(60) % 7 < 3, 0.0, np.arange(60.0))
    check(positions_kept, x)
    _no_breaks()


def test_empty_and_everything():
    for x in (np.zeros(10), np.ones(10) * 0.5, np.full(10, 3.0), np.array([]).astype(float)):
        check(nested, x)
        _no_breaks()


def other_mask(x):
    y = x[x > 0]
    z = x[x < 0]
    return y[z < -1]      # masks of other selections: NumPy's IndexError where lengths differ


def after_a_write(x):
    y = x[x > 0]
    k = y > 1
    y += 1                # y's values changed: k is of the old ones, still y's mask
    return y[k]


def test_other_masks_are_numpys_indexing():
    check(other_mask, np.array([1.0, -2.0, 3.0, -4.0]))     # equal lengths: selected
    check(other_mask, np.array([1.0, -2.0, 3.0, 4.0]))      # 3 against 1: IndexError
    check(after_a_write, np.array([0.5, -2.0, 3.0, 1.5]))
