"""np.nonzero, np.flatnonzero and np.where(m) of a 1-d array (trace/masked_select.py
nonzero_indices): arange(n) selected by a != 0, lazy like x[m]. Their count and
reductions are graph values, a returned one is made compact as the graph's last step
(no break), and any other use is NumPy's array, after one break at the line that
asked. Values, dtype, shape, strides and errors are NumPy's."""
import numpy as np
import pytest

import npcompile
from conftest import DEVICE, check, make
from test_split_loops import sieve
from test_trace_loops import COMPILED


def breaks():
    rep = npcompile.report()
    return rep["graph_breaks"] + rep["fallbacks"]


def nonzero_of(x):
    return np.nonzero(x > 0)[0]


def flat_of(x):
    return np.flatnonzero(x * 2 - 1)


def where_of(x):
    return np.where(x < 0.25)


def whole_tuple(x):
    return np.nonzero(x)


def counted_and_summed(x):
    i = np.flatnonzero(x > 0)
    return i.sum(), i.max(), np.mean(i), i.shape[0] * 2, x * 3


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int8, np.bool_,
                                   np.complex128])
@pytest.mark.parametrize("fn", [nonzero_of, flat_of, where_of, whole_tuple])
def test_returned_indices_are_numpys_without_a_break(fn, dtype):
    x = make((500,), dtype) if dtype is not np.bool_ else make((500,), np.int64) > 0
    got = check(fn, x)
    exp = fn(x)
    for g, e in zip(got if isinstance(got, tuple) else (got,),
                    exp if isinstance(exp, tuple) else (exp,)):
        g = g.get() if isinstance(g, npcompile.DeviceArray) else g
        assert g.dtype == np.intp and g.shape == e.shape and g.strides == e.strides
    assert breaks() == [], breaks()


@pytest.mark.parametrize("values", [[], [0.0, -0.0, 0.0], [np.nan, 0.0, -0.0, 1e-300, -2.0],
                                    [np.inf, 0, 0, 0, 0, 0, 0, 3]])
def test_edges_nan_signed_zero_and_empty(values):
    x = np.array(values, dtype=np.float64)
    check(whole_tuple, x)
    check(flat_of, x)


def test_the_count_and_reductions_are_graph_values():
    x = make((300,), np.float64)
    check(counted_and_summed, x)
    assert breaks() == [], breaks()
    if COMPILED:
        assert sum(c["kernels"] for c in npcompile.report()["compiles"]) >= 1


def test_a_sieve_compiles_without_a_break_and_replays_at_any_count():
    check(sieve, 300)
    if not COMPILED or DEVICE == "cuda":
        return
    npcompile.reset()
    f = npcompile.jit(sieve, choose=False)
    for n in (300, 300, 300):
        np.testing.assert_array_equal(f(n), sieve(n))
    assert breaks() == [], breaks()
    assert sum(1 for t in npcompile.report()["traces"] if t.get("replay")) >= 1


def gathered(x):
    idx = np.nonzero(x > 0)[0]       # used as an index: NumPy's array, one break here
    return x[idx] * 2, idx.size


def two_d(x):
    return np.nonzero(x > 0)         # two index arrays: NumPy's call, a break


def test_other_uses_break_once_at_the_line_that_asked():
    x = make((64,), np.float64)
    check(gathered, x)
    npcompile.reset()
    npcompile.jit(gathered, device=DEVICE, choose=False)(x)     # one call, one trace
    got = breaks()
    assert len(got) == 1 and got[0]["reason"].startswith("np.nonzero") and \
        got[0]["code"].startswith("idx = np.nonzero"), got
    npcompile.reset()
    check(two_d, make((6, 7), np.float64))
    assert any("np.nonzero" in b["reason"] for b in breaks())


def test_errors_are_numpys():
    check(whole_tuple, np.float64(3.0))      # 0-d: NumPy's error or value, whichever it is
    check(lambda x: np.nonzero(x)[1], make((5,), np.float64))     # IndexError of the tuple


def test_a_cell_keeps_numpys_array():
    ns = {"np": np, "a": make((200,), np.float64)}
    npcompile.run_cell("idx = np.flatnonzero(a > 0)\nn = len(idx)\n", ns)
    exp = np.flatnonzero(ns["a"] > 0)
    assert type(ns["idx"]) is np.ndarray and np.array_equal(ns["idx"], exp)
    assert ns["n"] == len(exp) and type(ns["n"]) is int


def absorbed(n, a, b, seed):
    rng = np.random.default_rng(seed)
    pos = np.zeros(n, dtype=np.int32)
    alive = np.ones(n, dtype=bool)
    t = 0
    while alive.any() and t < 1000:
        t += 1
        idx = np.flatnonzero(alive)         # a selection, then used as an index: a break
        steps = np.where(rng.random(idx.size) < 0.5, -1, 1).astype(np.int32)
        pos[idx] += steps
        hit = (pos[idx] <= -a) | (pos[idx] >= b)
        alive[idx[hit]] = False
    return pos, t


@pytest.mark.parametrize("loops", [True, False])
def test_a_break_budget_reached_while_indexing_with_a_selection(loops):
    """Walkers absorbed at barriers (a held-out program): written out, the call passes the
    break budget at a selection made compact to index with, and runs on untraced. The
    write it was about to make had been recorded into the ended trace and was never
    computed ('a lazy array outlived its trace', from the second call on)."""
    f = npcompile.jit(absorbed, device=DEVICE, loops=loops)
    for _ in range(4):
        got, exp = f(60, 3, 4, 7), absorbed(60, 3, 4, 7)
        got = tuple(g.get() if isinstance(g, npcompile.DeviceArray) else g for g in got)
        assert np.array_equal(got[0], exp[0]) and got[1] == exp[1]
