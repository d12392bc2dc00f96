"""Boolean-mask compaction (npcompile/compaction.py, runtime/Compact.hpp): NumPy's
`a[..., mask]` made branch-free by the runtime, and calls that return a compact
selection replaying whatever count their mask selects (api/step_plan._free_shapes)."""
import os

import numpy as np
import pytest

import npcompile
from npcompile import compaction
from npcompile.api.step_plan import StepPlan
from npcompile.backends import cpu
from npcompile.records import SESSION

NATIVE = pytest.mark.skipif(compaction._runtime is None, reason="no native module")
REPLAY = pytest.mark.skipif(not cpu.AVAILABLE or os.environ.get("NPC_BACKEND") == "reference",
                            reason="replay needs the compiled CPU backend")
DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint64, np.float16,
          np.float32, np.float64, np.complex128]


def same(got, want):
    assert type(got) is type(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.strides == want.strides and got.flags.owndata == want.flags.owndata
    np.testing.assert_array_equal(got, want)


class Counted:
    """The runtime's compact_rows, counted: the native path ran."""

    def __init__(self, monkeypatch):
        self.calls = 0
        real = compaction._runtime.compact_rows

        def counted(*a):
            self.calls += 1
            return real(*a)
        monkeypatch.setattr(compaction, "_runtime", type("R", (), {
            "compact_rows": staticmethod(counted)}))


@NATIVE
@pytest.mark.parametrize("dtype", DTYPES)
def test_select_is_numpys_for_every_dtype(dtype, monkeypatch):
    rng = np.random.default_rng(1)
    a = (rng.standard_normal(5000) * 50).astype(dtype)
    seen = Counted(monkeypatch)
    for p in (0.0, 0.03, 0.5, 0.97, 1.0):
        m = rng.random(5000) < p
        same(compaction.select(a, m), a[m])
    assert seen.calls == 5


@NATIVE
def test_select_of_rows_and_of_several_axes(monkeypatch):
    rng = np.random.default_rng(2)
    seen = Counted(monkeypatch)
    a = rng.standard_normal((40, 30, 7))
    rows, cols = rng.random(40) < 0.4, rng.random(30) < 0.6
    same(compaction.select(a, rows), a[rows])                       # whole rows
    plane = rng.random((40, 30)) < 0.5
    same(compaction.select(a, plane), a[plane])                     # two axes into one
    same(compaction.select(a, a > 10), a[a > 10])                   # none: empty
    # after whole axes NumPy's result is a view with the selected axis outermost in
    # memory: NumPy's own, strides and all
    same(compaction.select(a, cols, 1), a[:, cols])
    plane = rng.random((30, 7)) < 0.5
    same(compaction.select(a, plane, 1), a[:, plane])
    assert seen.calls == 3


@NATIVE
def test_select_falls_back_to_numpy_where_it_must(monkeypatch):
    rng = np.random.default_rng(3)
    seen = Counted(monkeypatch)
    a = rng.standard_normal((100, 60))
    m = rng.random(60) < 0.5
    f_order = np.asfortranarray(a)
    same(compaction.select(f_order, f_order > 0), f_order[f_order > 0])
    strided = a[::2]
    mm = rng.random(60) < 0.5
    np.testing.assert_array_equal(compaction.select(strided, mm, 1), strided[:, mm])
    small = rng.standard_normal(10)
    np.testing.assert_array_equal(compaction.select(small, small > 0), small[small > 0])
    ints = np.arange(2000) % 3          # not a boolean mask: NumPy's own (fancy) indexing
    np.testing.assert_array_equal(compaction.select(np.arange(2000.), ints.astype(bool)),
                                  np.arange(2000.)[ints.astype(bool)])
    obj = np.array([object()] * 2000)
    assert compaction.select(obj, np.ones(2000, bool)).dtype == object
    with pytest.raises(IndexError):     # NumPy's error for a mask of another length
        compaction.select(np.arange(2000.), np.ones(1999, bool))
    # F-ordered, strided, small and object arrays are NumPy's; the one bool mask of
    # the first axis of a C-ordered array (a 0/1/2 pattern) is the runtime's
    assert seen.calls == 1


@NATIVE
def test_runtime_checks_its_sizes():
    a, out = np.zeros(100), np.zeros(10)
    with pytest.raises(ValueError):
        compaction._runtime.compact_rows(a, np.ones(99, bool), out, 1, 99, 8, 10, 8)
    with pytest.raises(ValueError):
        compaction._runtime.compact_rows(a, np.ones(100, bool), out, 1, 100, 8, 11, 8)
    with pytest.raises(ValueError):
        compaction._runtime.compact_rows(a[::2], np.ones(50, bool), out, 1, 50, 8, 10, 8)
    with pytest.raises(ValueError):
        compaction._runtime.compact_rows(a, np.ones(100, bool), out, 1, 100, 8, 10, 3)


def filtered(x, t):
    y = x[x > t]
    return np.sqrt(np.abs(y)) * 2 + y.sum()


def counted_in_python(x):
    y = x[x > 0]
    n = len(y)
    return y * 1.0, n, y.shape[0] + 1


def steered_by_count(x):
    y = x[x > 0]
    if len(y) > 1500:               # Python decides on the count
        return y * 2.0
    return y - 1.0


def traces():
    return sum(1 for t in SESSION.traces if not t.get("replay"))


@REPLAY
def test_a_returned_selection_replays_at_every_count():
    rng = np.random.default_rng(4)
    j = npcompile.jit(filtered, choose=False)
    j(rng.standard_normal(5000), 0.5)
    j(rng.standard_normal(5000), 0.5)
    assert any(type(p) is StepPlan for p in j._plans.values())
    before = traces()
    for k in range(6):
        x = rng.standard_normal(5000)
        x[: 1000 * k] = -1.0            # ever fewer selected, none in the last call
        got, want = j(x, 0.5), filtered(x, 0.5)
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    assert traces() == before          # replayed, not traced: the compiled path ran
    assert not npcompile.report()["fallbacks"]


@REPLAY
def test_a_count_python_read_is_still_checked():
    rng = np.random.default_rng(5)
    j = npcompile.jit(counted_in_python, choose=False)
    for k in range(6):
        x = rng.standard_normal(3000)
        x[: 400 * k] = -1.0
        got, want = j(x), counted_in_python(x)
        np.testing.assert_array_equal(got[0], want[0])
        assert got[1:] == want[1:] and type(got[1]) is type(want[1])


@REPLAY
def test_a_branch_on_the_count_follows_the_data():
    rng = np.random.default_rng(6)
    j = npcompile.jit(steered_by_count, choose=False)
    for k in (0, 0, 0, 3, 3, 0, 4, 0):
        x = rng.standard_normal(3000)
        x[: 500 * k] = -1.0          # about 1500 selected, then fewer
        got, want = j(x), steered_by_count(x)
        assert got.shape == want.shape
        np.testing.assert_array_equal(got, want)


def cumulated(x, t):
    y = x[x > t]
    return np.cumsum(y)             # NumPy's compact array needed here: a break


@REPLAY
def test_a_returned_selection_is_the_graphs_last_step_not_a_break():
    x = np.arange(-5.0, 5.0)
    j = npcompile.jit(filtered, choose=False, fullgraph=True)
    np.testing.assert_array_equal(j(x, 0.5), filtered(x, 0.5))
    rep = npcompile.report()
    assert rep["graph_breaks"] == [] and rep["fallbacks"] == []
    assert rep["kernels"]           # the graph before it ran compiled


@REPLAY
def test_the_break_is_reported_at_the_selecting_line():
    j = npcompile.jit(cumulated, choose=False)
    np.testing.assert_array_equal(j(np.arange(-5.0, 5.0), 0.5), cumulated(np.arange(-5.0, 5.0), 0.5))
    rec = npcompile.report()["graph_breaks"][-1]
    assert rec["kind"] == "data_shape"
    assert rec["function"] == "cumulated" and rec["code"] == "y = x[x > t]"


def stats(x, t):
    sel = x[x > t]
    return sel.mean(), sel.std(), sel.sum(), np.max(sel)


def row_means(X, labels):
    rows = X[labels == 1]
    return rows.mean(axis=0), rows.var(axis=0, ddof=1)


@REPLAY
@NATIVE
def test_reductions_of_one_selection_share_one_compaction(monkeypatch):
    rng = np.random.default_rng(8)
    j = npcompile.jit(stats, choose=False)
    x = rng.standard_normal(5000)
    j(x, 0.3)
    seen = Counted(monkeypatch)
    for k in range(4):
        x = rng.standard_normal(5000)
        got, want = j(x, 0.3 + 0.2 * k), stats(x, 0.3 + 0.2 * k)
        for g, w in zip(got, want):     # NumPy's bits: its compact array, reduced alike
            assert type(g) is type(w) and g == w
    assert seen.calls == 4              # one compaction a call, for four reductions
    with pytest.raises(ValueError):     # NumPy's error for the max of nothing
        j(x, 1e9)


@REPLAY
@NATIVE
def test_row_selections_reduce_to_numpys_bits(monkeypatch):
    rng = np.random.default_rng(9)
    j = npcompile.jit(row_means, choose=False)
    for _ in range(3):
        X, labels = rng.standard_normal((3000, 3)), rng.integers(0, 3, 3000)
        for g, w in zip(j(X, labels), row_means(X, labels)):
            assert g.dtype == w.dtype and np.array_equal(g, w)
