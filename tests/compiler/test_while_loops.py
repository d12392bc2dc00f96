"""`while` loops with data-dependent exits (api/loop_rewrite.WhileSite, loop_runner.whiles):
the condition runs in Python on the loop's values, the body compiles once and replays,
counters (`k += 1`) stay in Python. Checked against NumPy on values, dtypes, shapes and
in-place arguments, and for the body compiling once."""
import os

import numpy as np
import pytest

import npcompile
from npcompile.backends import cpu
from conftest import DEVICE, GPU_ULP, check, host_value, make
from test_native_loop import corpus

COMPILED = cpu.AVAILABLE and os.environ.get("NPC_BACKEND") != "reference" and DEVICE == "cpu"


# the corpus's own programs (bench/programs), as scientists write them
power_iteration = corpus("power_iteration")
conjugate_gradient = corpus("conjugate_gradient")


def newton(a, tol):
    x = np.where(a > 1.0, a, 1.0)
    err = np.inf
    while err > tol:
        x = 0.5 * (x + a / x)
        err = np.max(np.abs(x * x - a) / a)
    return x, err


def in_place(u, steps):
    k = 0
    while k < steps:
        u[1:-1] += 0.25 * (u[:-2] - 2 * u[1:-1] + u[2:])
        k += 1
    return k


def temporary_read_after(u, tol):
    it = 0
    change = np.inf
    while change > tol and it < 500:
        new = 0.5 * (u + np.roll(u, 1))
        change = np.abs(new - u).max()
        u = new
        it += 1
    return u, change, it, new


def spd(n, seed):
    G = make((n, n), np.float64, seed=seed)
    return G @ G.T / n + np.eye(n)


@pytest.mark.parametrize("maxiter", [0, 1, 3, 40])
def test_power_iteration(maxiter):
    A = spd(12, 1)
    check(power_iteration, A, np.ones(12) / np.sqrt(12), 1e-12, maxiter)   # lam, x


@pytest.mark.parametrize("n", [5, 30])
def test_conjugate_gradient(n, monkeypatch):
    # (the body compiled once, whose products are NumPy's; a compiled loop nest, which
    # takes small solvers whole, adds its dot products in another order:
    # test_native_loop_views.py)
    monkeypatch.setenv("NPC_NATIVE_LOOPS", "0")
    check(conjugate_gradient, spd(n, 2), make((n,), np.float64, seed=3), 1e-10, 200,
          ulp=GPU_ULP if DEVICE == "cuda" else 0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_newton_with_a_carried_python_float(dtype):
    a = np.abs(make((50,), dtype, seed=4)) + 0.5
    check(newton, a, 1e-5 if dtype == np.float32 else 1e-13)


@pytest.mark.parametrize("steps", [0, 2, 25])
def test_in_place_updates_land_in_the_callers_array(steps):
    check(in_place, np.linspace(0, 1, 40) ** 2, steps)


def test_a_temporary_read_after_the_loop():
    check(temporary_read_after, make((30,), np.float64, seed=5), 1e-3)


def test_a_loop_that_never_runs_leaves_names_unbound_as_python_does():
    def f(x):
        while x.sum() > 1e9:
            y = x * 2
            x = y
        try:
            return y
        except NameError:
            return x + 1
    check(f, make((6,), np.float64))


def test_errors_inside_the_body_are_numpys():
    def f(A, x):
        k = 0
        while k < 3:
            x = A @ x          # shapes that do not match: ValueError at the first step
            k += 1
        return x
    check(f, make((4, 5), np.float64), make((4,), np.float64))


@pytest.mark.skipif(not COMPILED, reason="compiled CPU path not in use")
def test_the_body_compiles_once_and_replays(monkeypatch):
    monkeypatch.setenv("NPC_NATIVE_LOOPS", "0")     # (a compiled loop nest takes it whole)
    A, b = spd(40, 6), make((40,), np.float64, seed=7)
    npcompile.reset()
    npcompile.jit(conjugate_gradient, choose=False)(A, b, 1e-10, 200)
    rep = npcompile.report()
    assert rep["graph_breaks"] == [] and rep["fallbacks"] == []
    loop = [lp for lp in rep["loops"] if "while" in lp["text"]]
    assert loop and loop[0]["iterations"] > 5
    assert "one compiled body" in loop[0]["summary"]
    # the body traced once (the replays record no trace): no graph per iteration
    bodies = [t for t in rep["traces"] if "loop at line" in t["function"]]
    assert len(bodies) <= 2, len(bodies)
    assert len(rep["compiles"]) <= 4


jacobi_iteration = corpus("jacobi_iteration")   # `if ...: return x_new, it` mid-body


def relax_until(u, tol, steps):
    for it in range(steps):
        new = 0.5 * (u + np.roll(u, 1))
        change = np.abs(new - u).max()
        if change < tol:
            break
        u = new
    return u, new, change, it


TOL = 1e-3


def relax_global_tol(u):
    for k in range(60):
        u = 0.9 * u
        if np.abs(u).max() < TOL:
            break
    return u, k


def jacobi_system(n, seed):
    A = make((n, n), np.float64, seed=seed) + 4.0 * n * np.eye(n)
    return A, make((n,), np.float64, seed=seed + 1)


@pytest.mark.parametrize("maxiter", [8, 50])
def test_a_return_inside_the_loop(maxiter):
    A, b = jacobi_system(12, 8)
    check(jacobi_iteration, A, b, 1e-12, maxiter)


@pytest.mark.parametrize("tol,steps", [(1e-3, 40), (1e-30, 12), (10.0, 9)])
def test_a_break_then_renames(tol, steps):
    """Exits mid-way, never (the range runs out), and on the first iteration."""
    check(relax_until, make((20,), np.float64, seed=9), tol, steps)


def test_a_test_reading_a_global():
    check(relax_global_tol, make((10,), np.float64, seed=10))


@pytest.mark.skipif(not COMPILED, reason="compiled CPU path not in use")
def test_the_exit_loop_compiles_once_without_breaks():
    A, b = jacobi_system(30, 11)
    npcompile.reset()
    npcompile.jit(jacobi_iteration, choose=False)(A, b, 1e-12, 200)
    rep = npcompile.report()
    assert rep["graph_breaks"] == [] and rep["fallbacks"] == []
    loop = [lp for lp in rep["loops"] if "for it in range" in lp["text"]]
    assert loop and "one compiled body" in loop[0]["summary"], rep["loops"]
    bodies = [t for t in rep["traces"] if "loop at line" in t["function"]]
    assert len(bodies) <= 2, len(bodies)


def newton_with_history(X, y, maxiter):
    """IRLS: a residual history appended before the convergence test (a sink of an
    exit loop, api/loop_sinks.py), the list read after the loop."""
    beta = np.zeros(X.shape[1])
    dev = []
    for it in range(maxiter):
        p = 1.0 / (1.0 + np.exp(-(X @ beta)))
        dev.append(-2 * np.sum(y * np.log(p) + (1 - y) * np.log(1 - p)))
        H = X.T @ (X * (p * (1 - p))[:, None]) + 1e-8 * np.eye(X.shape[1])
        step = np.linalg.solve(H, X.T @ (y - p))
        beta = beta + step
        if np.linalg.norm(step) < 1e-10:
            break
    return beta, dev, it


def logistic_data(n, d, seed):
    X = make((n, d), np.float64, seed=seed) / 10.0
    y = (make((n,), np.float64, seed=seed + 1) > 0).astype(np.float64)
    return X, y


@pytest.mark.parametrize("maxiter", [9, 40])
def test_an_exit_loop_appending_to_a_list(maxiter):
    X, y = logistic_data(60, 3, 12)
    got = check(newton_with_history, X, y, maxiter)
    assert type(got[1]) is list and all(type(host_value(v)) is np.float64 for v in got[1])


@pytest.mark.skipif(not COMPILED, reason="compiled CPU path not in use")
def test_an_exit_loop_with_a_sink_compiles_once():
    X, y = logistic_data(60, 3, 13)
    npcompile.reset()
    npcompile.jit(newton_with_history, choose=False)(X, y, 40)
    rep = npcompile.report()
    loop = [lp for lp in rep["loops"] if "for it in range" in lp["text"]]
    assert loop and "one compiled body" in loop[0]["summary"], rep["loops"]
    bodies = [t for t in rep["traces"] if "loop at line" in t["function"]]
    assert len(bodies) <= 2, len(bodies)


def em_like(x, steps, tol):
    """A convergence test against the last value, which starts as a Python float
    (`old = 0.0`) and is the body's NumPy scalar from the second iteration on."""
    mu = x.mean()
    old = 0.0
    hist = []
    for it in range(steps):
        mu = 0.5 * (mu + np.mean(np.tanh(x - mu)) + x.mean())
        ll = -np.sum((x - mu) ** 2)
        hist.append(ll)
        if abs(ll - old) < tol * abs(ll):
            break
        old = ll
    return mu, old, hist, it


def halving(x, steps):
    """A carried number that stays a Python float: every iteration as written."""
    scale = 1.0
    for it in range(steps):
        y = x * scale
        if np.abs(y).max() < 1e-3:
            break
        scale = scale * 0.5
    return y, scale


@pytest.mark.parametrize("steps,tol", [(60, 1e-12), (60, 1e30), (12, -1.0)])
def test_an_exit_loop_carrying_a_python_float(steps, tol):
    """Exits mid-way, at the first test (the float left as it was: a Python float),
    and never."""
    got = check(em_like, make((50,), np.float64, seed=21), steps, tol)
    if tol > 1.0:
        assert type(got[1]) is float


@pytest.mark.parametrize("steps", [3, 40])
def test_an_exit_loop_whose_number_stays_a_number(steps):
    check(halving, make((30,), np.float64, seed=22), steps)


@pytest.mark.skipif(not COMPILED, reason="compiled CPU path not in use")
def test_an_exit_loop_carrying_a_python_float_compiles_once(monkeypatch):
    monkeypatch.setenv("NPC_NATIVE_LOOPS", "0")     # (the body; a nest takes it whole)
    npcompile.reset()
    npcompile.jit(em_like, choose=False)(make((50,), np.float64, seed=23), 60, 1e-14)
    rep = npcompile.report()
    loop = [lp for lp in rep["loops"] if "for it in range" in lp["text"]]
    assert loop and "one compiled body" in loop[0]["summary"], rep["loops"]
    assert "first iteration was traced as written" in loop[0]["summary"]
    assert len(rep["graph_breaks"]) <= 1     # the first iteration's own test
