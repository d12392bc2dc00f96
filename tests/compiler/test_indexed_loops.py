"""Loops whose body reads its loop variable only as whole indices (`y[t] = a * x[t] +
b * y[t - 1]`, api/loop_rewrite.IndexedSite): each iteration hands the body views made
in Python, and the body compiles once, against eager NumPy on values, dtypes, shapes,
in-place arguments and raised errors."""
import copy

import numpy as np
import pytest

import npcompile
from npcompile.api.loop_rewrite import IndexedSite
from npcompile.api.loop_runner import LOOP_MIN
from conftest import DEVICE, check, make, same
from test_trace_loops import CPU_KERNELS

LENGTHS = [0, 1, LOOP_MIN - 1, LOOP_MIN, 3 * LOOP_MIN + 1]


def ema(x, alpha):
    """A first-order recurrence over rows, a store into the row of its own array."""
    y = np.zeros(x.shape, x.dtype)
    for t in range(1, len(x)):
        y[t] = y[t - 1] + alpha * (x[t] - y[t - 1])
    return y, y.max(axis=0)


def lcs(a, b):
    """An element of one array (a 0-d view) against a whole other array."""
    row = np.zeros(b.shape[0] + 1, dtype=np.int64)
    for i in range(a.shape[0]):
        diag = np.where(b == a[i], row[:-1] + 1, row[1:])
        row = np.concatenate([row[:1], np.maximum.accumulate(diag)])
    return row


def columns(A, steps):
    """Column views, a store of a reduction into an element, the index wrapping at t = 0."""
    out = np.zeros(steps)
    for t in range(steps):
        A[:, t % A.shape[1]] += 0.5 * A[:, t - 1]
        out[t] = A[:, t % A.shape[1]].sum()
    return A, out


def gathered(x, idx, steps):
    """An index read through another view: x[idx[t]], a gather of a 0-d index."""
    acc = np.zeros(x.shape[1])
    for t in range(steps):
        acc = acc + x[idx[t]] * 2.0
    return acc


def past_the_end(y, x, steps):
    for t in range(steps):
        y[t + 1] = 0.5 * y[t] + x[t]
    return y


def elements_only(A):
    C = np.empty_like(A)
    for i in range(A.shape[0]):
        C[i] = A[i] * 2.0 + 1.0
    return C


@pytest.mark.parametrize("n", LENGTHS)
def test_a_row_recurrence(n):
    check(ema, make((n + 1, 12), np.float64), 0.1)
    check(ema, make((n + 1, 5), np.float32), 0.25)


@pytest.mark.parametrize("n", LENGTHS)
def test_an_element_against_an_array(n):
    check(lcs, make((n,), np.int8, low=0, high=3), make((40,), np.int8, 1, low=0, high=3))


@pytest.mark.parametrize("steps", [LOOP_MIN, 2 * LOOP_MIN + 1])
def test_columns_wrapping_indices_and_element_stores(steps):
    check(columns, make((6, 5), np.float64), steps)


def test_an_index_read_through_another_view():
    check(gathered, make((7, 4), np.float64), np.arange(20) % 7, 20)
    check(gathered, make((7, 4), np.float64), np.arange(20) % 9, 20)   # IndexError


@pytest.mark.parametrize("steps", [LOOP_MIN + 2, 3 * LOOP_MIN])
def test_an_index_past_the_end_raises_after_the_earlier_iterations(steps):
    y0, x = make((steps,), np.float64), make((steps,), np.float64, 1)
    y_np = y0.copy()
    with pytest.raises(IndexError):
        past_the_end(y_np, x, steps)
    y_jit = y0.copy()
    with pytest.raises(IndexError):
        npcompile.jit(past_the_end, device=DEVICE)(y_jit, x, steps)
    same(y_jit, y_np)
    check(past_the_end, make((steps + 1,), np.float64), x, steps)


def test_which_loops_are_indexed():
    def sites(fn):
        return [s for s in npcompile.jit(fn).loop_sites if isinstance(s, IndexedSite)]
    assert [s.call_names[:1] for s in sites(ema)] == [["alpha"]]
    assert len(sites(lcs)) == 1 and len(sites(columns)) == 1

    def reads_it_otherwise(x, n):
        for t in range(n):
            x = x + t
        return x

    def moving_slice(x, n):
        for t in range(n):
            x[t:] = x[t:] * 0.5
        return x

    def rebinds_the_base(x, n):
        for t in range(n):
            x = x * 2
            x[t] = 0
        return x
    # read as a number: handed in as a 0-d array (trace/loop_values.py)
    assert [s.value_at for s in sites(reads_it_otherwise)] == [1]
    for fn in (moving_slice, rebinds_the_base):
        assert sites(fn) == []
    for fn in (reads_it_otherwise, moving_slice, rebinds_the_base):
        check(fn, make((LOOP_MIN + 3,), np.float64), LOOP_MIN + 2)


@CPU_KERNELS
def test_the_indexed_body_compiles_once_whatever_the_number_of_iterations(monkeypatch):
    # the body compiled once, as where no loop nest takes it (a scalar loop nest takes
    # this one whole, rows included)
    monkeypatch.setenv("NPC_NATIVE_LOOPS", "0")

    def compiles(n):
        npcompile.reset()
        got = npcompile.jit(ema, choose=False)(make((n, 16), np.float64), 0.1)
        same(got, ema(make((n, 16), np.float64), 0.1))
        rep = npcompile.report()
        assert rep["fallbacks"] == []
        return rep
    short, long = compiles(20), compiles(80)
    assert len(long["compiles"]) == len(short["compiles"])

    def body_kernels(rep):   # (the graphs before and after the loop have n in their sizes)
        (loop,) = [lp for lp in rep["loops"] if "one compiled body" in lp["summary"]]
        return loop, {k["name"] for k in rep["kernel_sources"]
                      if str(k.get("graph_id")) == str(loop["graph_id"])}
    (loop, long_body), (_, short_body) = body_kernels(long), body_kernels(short)
    assert long_body == short_body and long_body
    assert loop["summary"].startswith(f"line {loop['lineno']}: 79 iterations, one compiled "
                                      f"body (graph {loop['graph_id']})")


@CPU_KERNELS
def test_picking_elements_only_is_not_a_compiled_body():
    npcompile.reset()
    A = make((LOOP_MIN + 4,), np.float64)
    same(npcompile.jit(elements_only, choose=False)(A.copy()), elements_only(A.copy()))
    assert not any("one compiled body" in lp["summary"] for lp in npcompile.report()["loops"])


def meets_itself(y, steps):
    """At t = 5 the row written is the row read: the views alias for that iteration."""
    for t in range(1, steps):
        y[t] = 0.5 * y[t - 1] + y[5]
    return y


@pytest.mark.parametrize("steps", [LOOP_MIN, 3 * LOOP_MIN])
def test_views_that_alias_at_one_iteration(steps):
    check(meets_itself, make((steps, 6), np.float64), steps)
