"""Loops inside the plain Python functions a jitted function calls (api/loop_helpers.py):
a helper's sweep is rewritten like the jitted function's own loops, the global is read
at every call (a helper defined again is the one that runs), against eager NumPy."""
import os

import numpy as np
import pytest

import npcompile
from npcompile.backends import cpu
from conftest import DEVICE, check, make

COMPILED = cpu.AVAILABLE and os.environ.get("NPC_BACKEND") != "reference" and DEVICE == "cpu"


def forward_sweep(a, b, d):
    """A first-order recurrence over the rows of a batch (a Thomas forward sweep's kind)."""
    out = np.empty_like(d)
    out[0] = d[0] / b[0]
    for i in range(1, d.shape[0]):
        out[i] = (d[i] - a[i] * out[i - 1]) / b[i]
    return out


def relax(a, b, u, steps):
    for s in range(steps):
        u = forward_sweep(a, b, u) * 0.5 + u * 0.5
    return u


def countdown(n):
    return 0 if n <= 0 else countdown(n - 1) + 1


def recursive_caller(x, n):
    total = 0.0
    for k in range(n):
        total += x[k] * countdown(3)
    return total


def inputs(rows=40, batch=30, seed=5):
    a = make((rows, batch), np.float64, seed=seed) * 0.1
    b = 2.0 + np.abs(make((rows, batch), np.float64, seed=seed + 1))
    return a, b, make((rows, batch), np.float64, seed=seed + 2)


@pytest.mark.parametrize("steps", [1, 3, 12])
def test_a_helper_with_a_row_loop_in_a_time_loop(steps):
    check(relax, *inputs(), steps)


@pytest.mark.skipif(not COMPILED, reason="compiled CPU path not in use")
def test_the_helpers_loop_compiles_once_whatever_the_steps():
    counts = []
    for steps in (12, 48):      # (both past LOOP_MIN: a shorter loop is written out)
        npcompile.reset()
        npcompile.jit(relax, choose=False)(*inputs(), steps)
        rep = npcompile.report()
        helper = [lp["summary"] for lp in rep["loops"] if "range(1, d.shape[0])" in lp["text"]]
        assert helper and any("compiled" in s for s in helper), rep["loops"]
        counts.append(len(rep["compiles"]) + len(rep["kernel_sources"]))
    assert counts[0] == counts[1], counts


def test_a_helper_defined_again_is_the_one_that_runs():
    f = npcompile.jit(relax, choose=False)
    args = inputs(seed=9)
    check(relax, *args, 4)
    f(*[np.copy(x) for x in args], 4)
    before = forward_sweep
    globals()["forward_sweep"] = lambda a, b, d: 3.0 * before(a, b, d)
    try:
        got = f(*[np.copy(x) for x in args], 4)
        exp = relax(*[np.copy(x) for x in args], 4)
        np.testing.assert_allclose(got, exp, rtol=1e-13)
    finally:
        globals()["forward_sweep"] = before


def test_a_recursive_helper():
    check(recursive_caller, make((12,), np.float64), 10)


@pytest.mark.skipif(not COMPILED, reason="compiled CPU path not in use")
def test_a_row_sweep_of_large_arrays_runs_as_the_nest():
    """A row per iteration (native_loop.row_sweep): the nest runs it whatever the arrays'
    size, where the size alone (40 x 500 elements) chose 39 replays of a body."""
    args = inputs(rows=40, batch=500, seed=11)
    check(forward_sweep, *args)
    summaries = [lp["summary"] for lp in npcompile.report()["loops"]]
    assert any("runs as one compiled function" in s for s in summaries), summaries
