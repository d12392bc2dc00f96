"""Loop bodies that record into a list or count in Python (api/loop_sinks.py): the body
compiles once, its sinks run in Python per iteration; against eager NumPy, lists
included (contents, element types, which elements are the same object)."""
import copy
import os
import warnings

import numpy as np
import pytest

import npcompile
from npcompile.api.loop_runner import LOOP_MIN
from conftest import DEVICE, check, make

# On the device the values a loop hands to Python are 0-d DeviceArrays where eager
# NumPy has NumPy scalars (the device contract for every 0-d result); these tests
# compare NumPy's own types, on the CPU (an open gap, in issue 14's note).
pytestmark = pytest.mark.skipif(DEVICE == "cuda", reason="compares NumPy scalar types")
from test_native_loop import corpus
from test_trace_loops import COMPILED

LENGTHS = [0, 1, LOOP_MIN - 1, LOOP_MIN, 30]


def residuals(d, b, x, iters):
    hist = []
    for _ in range(iters):
        r = b - d * x - 0.1 * (np.roll(x, 1) + np.roll(x, -1))
        x = x + r / d
        hist.append(np.abs(r).max())
    return x, hist


def trajectory(x, steps):
    out = []
    for _ in range(steps):
        x = 0.9 * x + 0.1 * np.roll(x, 1)
        out.append(x)
    return out, x


def copies(x, steps, out):
    for _ in range(steps):
        x *= 0.5
        out.append(x.copy())
        out.append(x)            # the same array each time, as eager has it
    return out


def scalar_history(x, steps):
    hist = []
    s = x.sum()
    for _ in range(steps):
        hist.append(s)           # a carried NumPy scalar: a NumPy scalar in the list
        s = s * 0.5 + x.max()
    return hist, s


# a perceptron counting its errors with int() and summing them with float()
counting = corpus("perceptron_count")


def running_max(u, steps):
    err = 0.0
    for _ in range(steps):
        u2 = 0.5 * (np.roll(u, 1) + np.roll(u, -1))
        err = max(err, np.abs(u2 - u).max())
        u = u2
    return u, err


def while_history(x, tol):
    hist = []
    k = 0
    err = np.inf
    while err > tol and k < 40:
        x2 = 0.5 * (x + 2.0 / x)
        err = np.abs(x2 - x).max()
        x = x2
        hist.append(err)
        k += 1
    return x, hist, k


def as_float(x, steps):
    hist = []
    for _ in range(steps):
        x = 0.5 * x + 0.25 * np.roll(x, 1)
        hist.append(float(x[0]))
    return hist


def _same_list(got, exp):
    """Equal lists: element types and values, and the same objects where eager has the
    same objects."""
    assert type(got) is list and len(got) == len(exp)
    for i, (g, e) in enumerate(zip(got, exp)):
        assert type(g) is type(e), (i, type(g), type(e))
        if isinstance(e, np.ndarray):
            assert g.dtype == e.dtype and g.shape == e.shape
        np.testing.assert_allclose(g, e, rtol=1e-12)
        for j in range(i):
            assert (g is got[j]) == (e is exp[j]), (i, j)


def _compiled_once(fn, *args):
    """The loop ran as one compiled body (where bodies compile: not the reference
    backend, whose graphs run op by op and do not replay)."""
    if not COMPILED:
        return None
    npcompile.reset()
    # (the body compiled once is what is tested: not a compiled loop nest, which takes
    # some of these loops whole)
    before = os.environ.get("NPC_NATIVE_LOOPS")
    os.environ["NPC_NATIVE_LOOPS"] = "0"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = npcompile.jit(fn, device=DEVICE, choose=False)(*copy.deepcopy(args))
    finally:
        if before is None:
            del os.environ["NPC_NATIVE_LOOPS"]
        else:
            os.environ["NPC_NATIVE_LOOPS"] = before
    rep = npcompile.report()
    assert rep["fallbacks"] == [] and rep["graph_breaks"] == [], rep["graph_breaks"]
    summaries = [loop["summary"] for loop in rep["loops"]]
    assert len(summaries) == 1 and "one compiled body" in summaries[0], summaries
    return got


@pytest.mark.parametrize("n", LENGTHS)
def test_a_residual_history(n):
    args = (np.full(40, 4.0), make((40,), np.float64), np.zeros(40), n)
    got = check(residuals, *args)
    _same_list(got[1], residuals(*copy.deepcopy(args))[1])
    if n >= LOOP_MIN:
        _compiled_once(residuals, *args)


@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_trajectory_of_the_carried_array(n, dtype):
    args = (make((12,), dtype), n)
    exp = trajectory(*copy.deepcopy(args))
    got = check(trajectory, *args)
    _same_list(got[0], exp[0])
    if n:
        assert got[0][-1] is got[1]          # the last element is the array returned
    if n >= LOOP_MIN:
        _compiled_once(trajectory, *args)


@pytest.mark.parametrize("n", LENGTHS)
def test_copies_and_the_same_array_again(n):
    args = (make((6,), np.float64), n, [])
    exp = copies(*copy.deepcopy(args))
    got = check(copies, *args)
    _same_list(got, exp)
    mine = [np.ones(2)]              # a list the caller made, with an item already in it
    out = npcompile.jit(copies, device=DEVICE, choose=False)(make((6,), np.float64), n, mine)
    assert len(mine) == len(out) == 2 * n + 1     # (the result is a copy of the list: jit)


@pytest.mark.parametrize("n", LENGTHS)
def test_a_carried_scalar_appended_stays_a_numpy_scalar(n):
    args = (make((9,), np.float32), n)
    got = check(scalar_history, *args)
    _same_list(got[0], scalar_history(*copy.deepcopy(args))[0])


@pytest.mark.parametrize("n", LENGTHS)
def test_counters_stay_python_numbers(n):
    X = make((30, 4), np.float64)
    args = (X, np.sign(make((30,), np.float64, seed=2)), np.zeros(4), n)
    got = check(counting, *args)
    assert type(got[1]) is int and type(got[2]) is float
    if n >= LOOP_MIN:
        _compiled_once(counting, *args)


@pytest.mark.parametrize("n", LENGTHS)
def test_a_running_max(n):
    args = (make((20,), np.float64), n)
    got = check(running_max, *args)
    assert type(got[1]) is type(running_max(*copy.deepcopy(args))[1])
    if n >= LOOP_MIN:
        _compiled_once(running_max, *args)


def test_a_running_max_keeps_pythons_rule_with_nan():
    u = make((20,), np.float64)
    u[3] = np.nan
    check(running_max, u, 12)


@pytest.mark.parametrize("tol", [1e-1, 1e-12])
def test_a_while_loop_records_its_errors(tol):
    args = (np.full(5, 3.0) + make((5,), np.float64) ** 2, tol)
    got = check(while_history, *args)
    _same_list(got[1], while_history(*copy.deepcopy(args))[1])


@pytest.mark.parametrize("n", LENGTHS)
def test_float_of_an_element_appended(n):
    got = check(as_float, make((4,), np.float64), n)
    assert all(type(v) is float for v in got)


def test_what_is_not_a_sink_stays_as_it_was():
    def reads_the_list(x, n):
        hist = []
        for _ in range(n):
            x = x * 0.5
            hist.append(x.sum())
            x = x + len(hist)        # the body reads the list: no sink
        return x, hist

    def effect_after(x, n, out):
        c = 0
        for _ in range(n):
            c += int(x.sum() > 0)    # may raise: not split, an in-place write follows
            x[0] += 1.0
        return c

    def not_a_list(x, n, d):
        for _ in range(n):
            x = x * 0.5
            d.append(x)
        return x
    for fn in (reads_the_list, effect_after):
        j = npcompile.jit(fn)
        assert all(s.sinks is None for s in j.loop_sites if hasattr(s, "sinks"))
    check(reads_the_list, make((5,), np.float64), 12)
    check(effect_after, make((5,), np.float64), 12, None)
    from collections import deque
    d, e = deque(), deque()
    got = npcompile.jit(not_a_list, device=DEVICE)(make((3,), np.float64), 10, d)
    not_a_list(make((3,), np.float64), 10, e)
    assert len(d) == len(e) == 10
    np.testing.assert_allclose(got, e[-1])


def test_an_error_part_way_keeps_what_was_appended_before_it():
    def fails(x, n, hist, k):
        for _ in range(n):
            hist.append(x.sum())
            x = x * 2.0
            x = x.reshape(k, -1)[0]  # k=3: the first trace of the body fails here
        return x

    def run(f, x, k):
        hist = []
        try:
            f(x, 12, hist, k)
        except ValueError:
            return hist
        raise AssertionError("no error")
    for k in (3,):
        exp = run(fails, np.arange(64.0), k)
        got = run(npcompile.jit(fails, device=DEVICE), np.arange(64.0), k)
        assert len(got) == len(exp) and [type(v) for v in got] == [type(v) for v in exp]
        np.testing.assert_allclose(got, exp)
