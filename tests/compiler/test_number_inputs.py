"""A loop that runs as written around an inner loop writes `out[p] = x` once per
iteration: the graph of that write held p as a constant, and each p compiled again
(graph/number_inputs.py). Checked against eager NumPy, and that the number of compiles
does not grow with the number of iterations."""
import numpy as np
import pytest

import npcompile
from conftest import check, same
from test_trace_loops import COMPILED

CPU = pytest.mark.skipif(not COMPILED, reason="the compiled CPU backend")


def _step(x, dt):
    return x + dt * np.sin(x)


def rows(x, periods, steps):
    out = np.empty((periods, x.size))
    for p in range(periods):
        for s in range(steps):
            x = _step(x, 0.01)
        x = np.mod(x + 1.0, 2.0) - 1.0
        out[p] = x
    return out, x


def columns_backwards(x, periods, steps):
    out = np.zeros((x.size, periods + 1))
    for p in range(periods):
        for s in range(steps):
            x = _step(x, 0.02)
        out[:, -1 - p] = x * 2.0
    return out


def past_the_end(x, periods, steps):
    out = np.zeros((periods, x.size))
    for p in range(periods):
        for s in range(steps):
            x = _step(x, 0.01)
        out[p + 1] = x      # IndexError at the last period, as NumPy raises it
    return out


def _compiles(fn, *args):
    npcompile.reset()
    got = npcompile.jit(fn, choose=False)(*args)
    rep = npcompile.report()
    assert not rep["fallbacks"], rep["fallbacks"]
    return got, rep


@CPU
@pytest.mark.parametrize("fn", [rows, columns_backwards])
def test_the_write_compiles_once_whatever_the_number_of_iterations(fn):
    x = np.linspace(-0.9, 0.9, 300)
    check(fn, x, 6, 30)
    _, short = _compiles(fn, x, 6, 30)
    _, long = _compiles(fn, x, 24, 30)
    assert len(long["compiles"]) == len(short["compiles"]), (
        [c["ops"] for c in short["compiles"]], [c["ops"] for c in long["compiles"]])
    assert len(short["compiles"]) <= 5     # before, the outer body and a write per p


@CPU
def test_the_values_and_the_caller_s_arrays_match_numpy():
    x = np.linspace(-0.9, 0.9, 257)
    for periods in (1, 2, 5):
        check(rows, x, periods, 27)
    exp_out, exp_x = rows(x.copy(), 9, 27)
    got_out, got_x = npcompile.jit(rows, choose=False)(x, 9, 27)
    np.testing.assert_allclose(got_out, exp_out, rtol=1e-12)
    np.testing.assert_allclose(got_x, exp_x, rtol=1e-12)
    assert np.array_equal(x, np.linspace(-0.9, 0.9, 257))     # the argument untouched


@CPU
def test_an_index_out_of_range_raises_numpy_s_error():
    x = np.linspace(-0.9, 0.9, 300)
    check(past_the_end, x, 5, 30)
    with pytest.raises(IndexError, match="out of bounds"):
        npcompile.jit(past_the_end, choose=False)(x, 5, 30)


def two_writes(x, periods, steps):
    out = np.zeros((periods, 3, x.size))
    last = np.zeros(4)
    for p in range(periods):
        for s in range(steps):
            x = _step(x, 0.01)
        out[p, 1] = x           # a tuple key: its integers change
        out[-1 - p, 2, 5:9] = x[:4] + 1.0
        last[2] = p             # a 0-d write whose key stays
    return out, last


@CPU
def test_tuple_keys_and_a_key_that_stays():
    x = np.linspace(-0.9, 0.9, 64)
    check(two_writes, x, 7, 26)
    _, short = _compiles(two_writes, x, 4, 26)
    _, long = _compiles(two_writes, x, 12, 26)
    assert len(long["compiles"]) == len(short["compiles"])


def into_argument(out, x, p):
    out[p] = x * 2.0
    return out


@CPU
def test_a_call_s_write_replays_with_its_own_index():
    # one graph per call: its index, an input of the graph, is a constant of each call's
    # replay plan, whose key holds the argument p
    rng = np.random.default_rng(3)
    x = rng.standard_normal(50)
    npcompile.reset()
    j = npcompile.jit(into_argument, choose=False)
    exp, got = np.zeros((3, 50)), np.zeros((3, 50))
    for p in (0, 1, 2, 1, 0, 2, -1, 1):
        x = x + 1.0
        into_argument(exp, x, p)
        assert j(got, x, p) is got
        assert np.array_equal(got, exp), p
    assert not npcompile.report()["fallbacks"]


def forced(x, periods, steps):
    t = 0.0
    out = np.empty((periods, x.size))
    hits = np.zeros(x.size, np.int64)
    x32 = x.astype(np.float32)
    for p in range(periods):
        for s in range(steps):
            x = _step(x, 0.01)
        t += 0.25
        x = x * 0.99 + 0.01 * t             # a Python float of the iteration
        x = x - np.cos(t) * 0.001           # a NumPy float64 of it
        x32 = x32 * 0.5 + t                 # weak: stays float32 (NumPy 1.x and 2)
        hits = hits + (x > 0.01 * p) + p    # a comparison's and an int's number
        out[p] = x
    return out, hits, x32


@CPU
def test_numbers_of_the_iteration_are_inputs_with_numpy_s_dtypes():
    x = np.linspace(-0.9, 0.9, 300)
    for periods in (1, 3, 8):
        check(forced, x, periods, 25)
    _, short = _compiles(forced, x, 4, 25)
    _, long = _compiles(forced, x, 16, 25)
    assert len(long["compiles"]) == len(short["compiles"]), (
        [c["ops"] for c in short["compiles"]], [c["ops"] for c in long["compiles"]])


def compared(x, periods, steps, big):
    out = np.zeros((periods, x.size), bool)
    k = np.arange(x.size)
    for p in range(periods):
        for s in range(steps):
            x = _step(x, 0.01)
        out[p] = (k < big + p) & (x > 0.001 * p)     # big: past int64 for some calls
    return out


@CPU
@pytest.mark.parametrize("big", [3, 2 ** 70, -2 ** 70])
def test_a_number_no_dtype_of_the_kernels_holds_stays_numpy_s(big):
    x = np.linspace(-0.9, 0.9, 40)
    check(compared, x, 6, 25, big)


def count_squared(a):
    t0 = abs(np.count_nonzero(a) - a.size)
    return np.multiply(t0, t0) + a, np.mean(np.multiply(t0, t0), axis=0)


def test_an_op_of_two_numbers_is_not_taken_for_one_of_them():
    """np.multiply of a count by itself has no array operand: a constant op, where the
    module sliced the other number as if it were an array's reference (fuzzer seed
    5932894, NumPy 1.x: TypeError instead of NumPy's AxisError)."""
    check(count_squared, np.arange(5, dtype=np.int32))


def mean_of_positive(x):
    y = x[x > 0]            # a break: the count depends on the data
    return y.sum() / len(y)


def scaled_rows(x, n):
    y = x[x > 0]
    m = len(y)
    return y.sum() / m, x / m + n, y.sum() > m / 10.0


@CPU
def test_a_division_by_a_count_compiles_once_for_every_count():
    """np.true_divide's __name__ is "divide": dividing by a number that changed between
    calls (a count, a length) compiled once per value, and a 0-d sum over a number was
    never made an input either."""
    rng = np.random.default_rng(3)
    xs = []
    for i in range(8):      # 50, 59, ... positive elements: a new count at every call
        x = -np.abs(rng.standard_normal(300)) - 0.1
        x[rng.permutation(300)[:50 + 9 * i]] *= -1
        xs.append(x)
    for x in xs[:3]:
        check(mean_of_positive, x)
        check(scaled_rows, x, 3)
    npcompile.reset()
    f = npcompile.jit(scaled_rows, choose=False)
    for x in xs:
        got = f(x, 3)
        exp = scaled_rows(x, 3)
        for g, e in zip(got, exp):
            same(g, e, 4)
    rep = npcompile.report()
    assert not rep["fallbacks"], rep["fallbacks"]
    counts = {int((x > 0).sum()) for x in xs}
    assert len(counts) == len(xs)
    assert len(rep["compiles"]) <= 6, [r["reason"] for r in rep["recompiles"]]
    assert any("it is an input of the graph" in r["reason"] for r in rep["recompiles"])
