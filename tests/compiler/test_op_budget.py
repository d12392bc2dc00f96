"""The op budget (trace/budget.py): a call whose trace unrolls past it stops tracing and
runs as plain NumPy (from its start when nothing happened yet, else uncompiled from
there), with the same values, in-place writes and effects as eager NumPy, and a
report that says why. Later calls like it run as NumPy without tracing."""

import os

import numpy as np
import pytest

import npcompile
from npcompile.trace import budget
from conftest import same
from test_trace_loops import CPU_KERNELS
from test_native_loop import double_loop as scalar_double

LIMIT = 400


@pytest.fixture(autouse=True)
def small_budget(monkeypatch):
    # scalar loop nests would run compiled (api/native_loop.py): these must unroll
    monkeypatch.setenv("NPC_NATIVE_LOOPS", "0")
    before = budget.LIMIT
    budget.set_limit(LIMIT)
    yield
    budget.set_limit(before)


def bump_in_place(x):
    for i in range(x.shape[0]):
        x[i] += i
    return x.sum()


def ufunc_chain(x, steps):      # only ufuncs: ops the C++ recorder makes
    for _ in range(steps):
        x = np.tanh(x) * 0.5 + 0.25
    return x


def budget_choices():
    return [c for c in npcompile.report()["path_choices"] if c.get("budget")]


def traces():
    return len(npcompile.report()["traces"])


@pytest.mark.parametrize("choose", [False, True])
def test_a_call_past_the_budget_runs_again_as_numpy(choose):
    A = np.arange(30 * 30, dtype=np.float64).reshape(30, 30)
    f = npcompile.jit(scalar_double, choose=choose)
    same(f(A), scalar_double(A))
    (choice,) = budget_choices()
    assert choice["choice"] == "numpy"
    assert f"passed {LIMIT} ops at line" in choice["reason"]
    assert "ran again as plain NumPy" in choice["reason"]
    assert npcompile.report()["compiles"] == []       # nothing was compiled
    n = traces()
    for _ in range(3):                                # later calls: NumPy, untraced
        same(f(A), scalar_double(A))
    assert traces() == n
    assert len(budget_choices()) == 1


def test_under_the_budget_the_call_compiles():
    A = np.arange(8 * 8, dtype=np.float64).reshape(8, 8)   # 64 writes: ~260 ops
    f = npcompile.jit(scalar_double)
    same(f(A), scalar_double(A))
    assert budget_choices() == []
    assert npcompile.report()["compiles"]


def test_in_place_writes_land_once():
    """Writes pending when the trace stopped are dropped, and the NumPy run makes them:
    the argument ends up as one eager run leaves it, not changed twice."""
    x = np.zeros(1000)
    expect = np.zeros(1000)
    r_eager = bump_in_place(expect)
    r = npcompile.jit(bump_in_place)(x)
    same(x, expect)
    same(r, r_eager)
    assert "ran again" in budget_choices()[0]["reason"]


def test_the_cpp_recorder_ends_the_trace_too():
    x = np.linspace(-1, 1, 50)
    f = npcompile.jit(ufunc_chain, loops=False)       # unrolled: one op chain
    same(f(x, 200), ufunc_chain(x, 200))
    assert "ran again" in budget_choices()[0]["reason"]
    assert npcompile.report()["compiles"] == []


def noisy(A, log):
    n = A.shape[0]
    C = np.zeros_like(A)
    for i in range(n):
        log.append(i)                   # an effect: the call cannot start again
        C[i] = A[i] * 3.0
        C[i] -= 1.0
    return C


def test_after_an_effect_the_call_goes_on_uncompiled():
    A = np.arange(500.0)
    log, log_eager = [], []
    f = npcompile.jit(noisy)
    same(f(A, log), noisy(A, log_eager))
    assert log == log_eager                           # each effect once
    (choice,) = budget_choices()
    assert "ran uncompiled" in choice["reason"]
    assert "could not start again" in choice["reason"]
    log2 = []
    same(f(A, log2), noisy(A, []))                    # later calls: plain NumPy
    assert log2 == log_eager


def swallowing(A):
    C = np.zeros_like(A)
    try:
        for i in range(A.shape[0]):
            C[i] = A[i] + 1.0
    except BaseException:               # the user's code catches everything
        C = None
    return C


def test_a_swallowed_budget_end_still_runs_numpy():
    A = np.arange(600.0)
    same(npcompile.jit(swallowing)(A), swallowing(A))
    assert "ran again" in budget_choices()[0]["reason"]


RNG = np.random.default_rng(5)


def draws(n):
    x = np.zeros(n)
    for i in range(n):
        x[i] = RNG.random() + i        # a global generator: its stream moves on
    return x


def test_random_draws_are_not_drawn_twice():
    global RNG
    RNG = np.random.default_rng(5)
    got = npcompile.jit(draws)(400)
    state_after = RNG.bit_generator.state
    RNG = np.random.default_rng(5)
    expect = draws(400)
    same(got, expect)
    assert state_after == RNG.bit_generator.state
    assert "ran uncompiled" in budget_choices()[0]["reason"]


def legacy_draws(n):
    x = np.zeros(n)
    for i in range(n):
        x[i] = np.random.random() * i   # the module's global stream, one number at a time
    return x


def test_legacy_scalar_draws_are_not_drawn_twice():
    np.random.seed(3)
    got = npcompile.jit(legacy_draws)(400)
    after = np.random.random()
    np.random.seed(3)
    same(got, legacy_draws(400))
    assert after == np.random.random()
    assert "ran uncompiled" in budget_choices()[0]["reason"]


def test_fullgraph_has_no_budget():
    A = np.arange(30 * 30, dtype=np.float64).reshape(30, 30)
    same(npcompile.jit(scalar_double, fullgraph=True)(A), scalar_double(A))
    assert budget_choices() == []
    assert npcompile.report()["compiles"]


def heat(u, steps):
    for _ in range(steps):
        u[1:-1] = u[1:-1] + 0.1 * (u[2:] - 2 * u[1:-1] + u[:-2])
    return u


@CPU_KERNELS   # a body replays only where it ran compiled
def test_loops_compiled_once_do_not_count():
    u = np.linspace(0, 1, 64) ** 2
    steps = 4 * LIMIT                   # unrolled, many times the budget
    got = npcompile.jit(heat)(u.copy(), steps)
    same(got, heat(u.copy(), steps))
    assert budget_choices() == []
    assert any("one compiled body" in n["summary"] for n in npcompile.report()["loops"])


def test_a_cell_past_the_budget_runs_uncompiled():
    ns = {"np": np, "A": np.arange(700.0)}
    eager = {"np": np, "A": ns["A"].copy()}
    src = "B = np.zeros_like(A)\nfor i in range(A.shape[0]):\n    B[i] = A[i] * 2\ntotal = B.sum()\n"
    exec(src, eager)
    npcompile.run_cell(src, ns)
    same(ns["B"], eager["B"])
    same(ns["total"], eager["total"])
    assert type(ns["B"]) is np.ndarray
    (choice,) = budget_choices()
    assert "rest of the cell ran uncompiled" in choice["reason"]


def test_the_limit_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv("NPC_OP_BUDGET", "0")
    assert budget._from_env() is None
    monkeypatch.setenv("NPC_OP_BUDGET", "1234")
    assert budget._from_env() == 1234


def _three_graphs(a):
    b = np.sin(a) * 2
    if b.sum() > -1e9:           # a break: the next graph is another compile
        b = b + np.cos(a)
    if b.max() < 1e9:
        a[:2] = b[:2] * 3        # an in-place write in the last graph
    return b - 1


@pytest.mark.skipif(os.environ.get("NPC_BACKEND") == "reference", reason="nothing compiles")
def test_the_compile_budget_caps_one_call_and_the_next_compiles_on():
    from npcompile.trace import budget
    old = budget.COMPILE_LIMIT_MS
    budget.set_compile_limit(1e-6)      # any compile passes it
    try:
        a = np.linspace(0, 1, 50)
        exp_a = a.copy()
        exp = _three_graphs(exp_a)
        j = npcompile.jit(_three_graphs, choose=False)
        got_a = a.copy()
        np.testing.assert_allclose(j(got_a), exp, rtol=1e-12)
        np.testing.assert_allclose(got_a, exp_a, rtol=1e-12)
        rep = npcompile.report()
        assert len(rep["compiles"]) == 1      # the first graph compiled, then the cap
        capped = [f for f in rep["fallbacks"] if f["reason"].startswith("compile budget")]
        assert len(capped) == 1 and "NPC_COMPILE_BUDGET_MS" in capped[0]["reason"]
        got_a = a.copy()
        np.testing.assert_allclose(j(got_a), exp, rtol=1e-12)   # the next call: one more
        np.testing.assert_allclose(got_a, exp_a, rtol=1e-12)
        assert len(npcompile.report()["compiles"]) == 2
    finally:
        budget.set_compile_limit(old)
