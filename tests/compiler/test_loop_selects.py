"""A loop body's `if` statements made selects (api/loop_selects.py, loop_picks.choose):
the body compiles once where the `if` tested a traced value at every iteration.
Checked against NumPy on values, types and in-place arguments, and for the body
compiling once with no graph break per iteration."""
import inspect
import os

import numpy as np
import pytest

import npcompile
from npcompile.backends import cpu
from conftest import DEVICE, check, host_value, make

COMPILED = cpu.AVAILABLE and os.environ.get("NPC_BACKEND") != "reference" and DEVICE == "cpu"


def adaptive_decay(y0, k, t_end, h):
    """Explicit Euler with a step limited by the fastest rate and clipped to the end
    time, as ODE codes write it."""
    y = y0.copy()
    t = 0.0
    steps = 0
    while t < t_end:
        rate = np.max(np.abs(k * y))
        dt = h / (1.0 + rate)
        if t + dt > t_end:
            dt = t_end - t
        y = y - dt * k * y
        t += dt
        steps += 1
    return y, t, steps


def best_so_far(x, steps, lr):
    """Gradient steps on a quadratic, keeping the best loss and mean (if/else). (An
    array kept, `kept = x`, is `a if test else b`: a select would copy what the user's
    code aliases.)"""
    best = np.inf
    kept = 0.0
    for k in range(steps):
        g = 2.0 * (x - 1.5)
        x = x - lr / (1.0 + 0.1 * k) * g       # reads k: a loop that is not split
        loss = np.sum((x - 1.5) ** 2)
        mean = np.mean(x)
        if loss < best:
            best = loss
            kept = mean
        else:
            best = best * 1.0
    return best, kept


def best_point(x, steps, lr):
    """An if that keeps an array (`kept = x`): split, its test in Python (a select
    would copy what the user's code aliases, and break the graph at every iteration)."""
    best = np.inf
    kept = x
    for _ in range(steps):
        x = x - lr * 2.0 * (x - 1.5)
        loss = np.sum((x - 1.5) ** 2)
        if loss < best:
            best = loss
            kept = x
    return best, kept


def halve_on_flag(x, steps, flag):
    for _ in range(steps):
        x = x * 0.5 + 1.0
        if flag:                   # a Python bool: the select is plain Python
            x = x - 1.0
    return x


def unsafe_branch(x, steps):
    s = np.float64(1.0)
    for _ in range(steps):
        m = np.max(x)
        if m > 0:
            s = s / m              # a division: the `if` stays as written
        x = x * 0.9
    return s


def bound_only_in_branch(x, steps):
    for _ in range(steps):
        x = x * 0.5
        if np.max(x) > 100.0:
            late = x               # unbound before the loop: the loop runs as written
    return x


def mixed_types(x, steps):
    c = 0.0                       # a Python float against a float64: `a if test else b`
    for _ in range(steps):
        x = x * 0.9
        if np.max(x) < 0.5:
            c = 1.0
        else:
            c = np.max(x)
    return c


def rates(n=200):
    return 0.5 + np.linspace(0.0, 2.0, n)


@pytest.mark.parametrize("t_end", [0.0, 0.02, 0.3])
def test_an_adaptive_time_step_clipped_to_the_end(t_end):
    check(adaptive_decay, np.ones(200), rates(), t_end, 0.01)


@pytest.mark.skipif(not COMPILED, reason="compiled CPU path not in use")
def test_the_clipped_time_step_compiles_once_without_a_break_per_step(monkeypatch):
    monkeypatch.setenv("NPC_NATIVE_LOOPS", "0")     # (the body's C++ loop; a nest takes it whole)
    npcompile.reset()
    npcompile.jit(adaptive_decay, choose=False)(np.ones(200), rates(), 0.3, 0.01)
    rep = npcompile.report()
    assert rep["fallbacks"] == []
    loop = [lp for lp in rep["loops"] if "while" in lp["text"]]
    assert loop and loop[0]["iterations"] > 20, rep["loops"]
    assert "one compiled body" in loop[0]["summary"]
    # one break at most per call (the first iteration settles the carried float t), at
    # the `if` the user wrote
    assert len(rep["graph_breaks"]) <= 2, [b["reason"] for b in rep["graph_breaks"]]
    if_line = next(i for i, text in enumerate(inspect.getsourcelines(adaptive_decay)[0])
                   if "if t + dt" in text) + adaptive_decay.__code__.co_firstlineno
    assert all(b["lineno"] == if_line for b in rep["graph_breaks"]), rep["graph_breaks"]


@pytest.mark.parametrize("steps", [0, 3, 30])
def test_if_else_keeping_the_best(steps):
    check(best_so_far, make((20,), np.float64, seed=1), steps, 0.1)


@pytest.mark.skipif(not COMPILED, reason="compiled CPU path not in use")
def test_if_else_keeping_the_best_compiles_once(monkeypatch):
    monkeypatch.setenv("NPC_NATIVE_LOOPS", "0")     # (a compiled loop nest takes it whole)
    npcompile.reset()
    npcompile.jit(best_so_far, choose=False)(make((20,), np.float64, seed=1), 40, 0.1)
    rep = npcompile.report()
    summaries = [lp["summary"] for lp in rep["loops"]]
    assert any("the if at line" in s and "made selects" in s for s in summaries), summaries
    assert any("40 iterations, one compiled body" in s for s in summaries), summaries
    assert len(rep["graph_breaks"]) <= 2, [b["reason"] for b in rep["graph_breaks"]]


@pytest.mark.parametrize("flag", [True, False])
def test_a_python_bool_test(flag):
    check(halve_on_flag, make((10,), np.float64), 12, flag)


def test_a_branch_that_could_raise_is_not_computed_untaken():
    x = np.array([-1.0, -2.0, -3.0])     # m < 0: s / m never runs
    check(unsafe_branch, x, 10)
    check(unsafe_branch, np.array([0.0, 0.0]), 10)
    check(unsafe_branch, np.array([2.0, 3.0]), 10)


def test_a_name_bound_only_in_a_branch():
    check(bound_only_in_branch, make((8,), np.float64), 10)


def test_a_python_float_against_a_numpy_scalar_keeps_each_type():
    got = check(mixed_types, np.array([1.0, 0.3]), 12)   # 0.9**12 < 0.5: a Python float
    assert type(got) is float
    got = check(mixed_types, np.array([1.0, 0.3]), 2)
    assert type(host_value(got)) is np.float64


@pytest.mark.parametrize("steps", [3, 30])
def test_an_if_keeping_an_array_is_split_not_selected(steps, monkeypatch):
    check(best_point, make((20,), np.float64, seed=1), steps, 0.1)
    if COMPILED and steps == 30:
        monkeypatch.setenv("NPC_NATIVE_LOOPS", "0")     # (a compiled loop nest takes it)
        npcompile.reset()
        npcompile.jit(best_point, choose=False)(make((20,), np.float64, seed=1), steps, 0.1)
        rep = npcompile.report()
        summaries = [lp["summary"] for lp in rep["loops"]]
        assert any("straight-line part(s) compiled once" in s for s in summaries), summaries
        assert len(rep["graph_breaks"]) <= 2, [b["reason"] for b in rep["graph_breaks"]]
