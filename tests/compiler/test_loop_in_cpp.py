"""A loop whose compiled body has settled runs its iterations in one C++ loop
(StepProgram.run_loop): against eager NumPy on values, dtypes, in-place arguments and
errors raised part-way, and the C++ loop really ran (the report says how many
iterations it took)."""
import numpy as np
import pytest

import npcompile
from conftest import DEVICE, check, make
from test_interrupt import assert_ctrl_c_stops
from test_trace_loops import COMPILED

CPU = pytest.mark.skipif(not COMPILED or DEVICE == "cuda",
                         reason="the C++ loop drives the CPU's compiled kernels")


@pytest.fixture(autouse=True)
def _bodies(bodies_compiled_once):
    """Small arrays: the body compiled once, not the loop nest that would take them
    (`x = x * 0.5 + 1.0` is one: codegen/scalar_nest_arrays.py)."""


def relax(x, n):
    for _ in range(n):
        x = x * 0.5 + 1.0
    return x


def leapfrog(x, v, n, dt):
    for _ in range(n):
        v -= dt * x          # in place: the caller's arrays move with the loop
        x += dt * v
    return x, v


def mixed(a, b, n):
    for _ in range(n):
        a = a * 3 % 1001
        b += a / 7           # int carried and fed, float written in place
    return a, b


def swap(a, b, n):
    for _ in range(n):
        a, b = b, a + b      # a carried value handed on as it is: moved in C++
    return a, b


def powers(x, n):
    for _ in range(n):
        x += 1
        y = 2 ** (12 - x)    # negative integer powers raise from the 12th iteration
    return x, y


def ema(x, y, a):
    for t in range(1, x.shape[0]):
        y[t] = a * x[t] + (1 - a) * y[t - 1]     # views made per iteration in C++'s loop
    return y


def rows(A, n):
    for k in range(n):
        A[k + 1] = A[k + 1] - 0.5 * A[k]
    return A


def shifted(y, n):
    for t in range(n):
        y[t + 1] = y[t + 1] + y[t]      # written y[t+1] is read as y[t] next time
    return y


def _in_cpp(rep):
    return [l["summary"] for l in rep["loops"] if "in one C++ loop" in l["summary"]]


@CPU
@pytest.mark.parametrize("n", [8, 9, 40, 300])
def test_a_settled_body_runs_in_one_cpp_loop(n):
    check(relax, make((50,), np.float64), n)
    check(leapfrog, make((7, 3), np.float64), make((7, 3), np.float64, seed=1), n, 0.01)
    check(leapfrog, make((6,), np.float32), make((6,), np.float32, seed=1), n, 0.01)
    npcompile.reset()
    npcompile.jit(relax, choose=False)(make((50,), np.float64), n)
    rep = npcompile.report()
    assert not rep["fallbacks"] and len(rep["compiles"]) == 1
    got = _in_cpp(rep)
    assert len(got) == 1 and f"{n} iterations, one compiled body" in got[0], rep["loops"]
    ran = int(got[0].split(", ")[-1].split()[0])
    assert n - 5 <= ran < n


@CPU
def test_fed_and_written_values_together_and_swaps_stay_exact():
    check(mixed, make((5,), np.int64), make((5,), np.float64), 30)
    check(swap, make((4,), np.int64), make((4,), np.int64, seed=1), 30)


@CPU
@pytest.mark.parametrize("n", [8, 30])
def test_indexed_loops_make_their_views_per_iteration(n, monkeypatch):
    monkeypatch.setenv("NPC_NATIVE_LOOPS", "0")     # (a loop nest takes float64 rows whole)
    check(ema, make((n + 1, 5), np.float64), np.zeros((n + 1, 5)), 0.1)
    check(ema, make((n + 1,), np.float32), make((n + 1,), np.float32, seed=2), 0.25)
    check(rows, make((n + 1, 4), np.float64), n)
    check(shifted, make((n + 1, 3), np.int64), n)
    npcompile.reset()
    npcompile.jit(ema, choose=False)(make((n + 1, 5), np.float64), np.zeros((n + 1, 5)), 0.1)
    assert _in_cpp(npcompile.report()), npcompile.report()["loops"]


@CPU
def test_an_index_out_of_range_part_way_is_numpys_error():
    A = make((10, 4), np.float64)
    ref = A.copy()
    with pytest.raises(IndexError):
        rows(ref, 20)
    with pytest.raises(IndexError):
        npcompile.jit(rows, choose=False)(A, 20)
    np.testing.assert_array_equal(A, ref)


@CPU
def test_an_error_part_way_is_numpys_with_the_writes_before_it():
    x = np.zeros(4, np.int64)
    ref = x.copy()
    with pytest.raises(ValueError):
        powers(ref, 30)
    j = npcompile.jit(powers, choose=False)
    with pytest.raises(ValueError):
        j(x, 30)
    np.testing.assert_array_equal(x, ref)   # 13 increments landed, as in NumPy
    # the compiled body and its C++ loop went on working for arguments that do not raise
    a, b = np.zeros(4, np.int64), np.zeros(4, np.int64)
    assert [r.tolist() for r in j(a, 10)] == [r.tolist() for r in powers(b, 10)]
    np.testing.assert_array_equal(a, b)


_LONG_LOOP = """
import time
import numpy as np, npcompile
def spin(x, n):
    for _ in range(n):
        x = x * 0.5 + 1.0
    return x
j = npcompile.jit(spin, choose=False)
j(np.ones(8), 20)
print("ready", flush=True)
t0 = time.time()
try:
    j(np.ones(8), 10**9)
    print("finished", time.time() - t0)
except KeyboardInterrupt:
    print("interrupted", time.time() - t0)
print("usable", bool(np.allclose(j(np.ones(8), 20), spin(np.ones(8), 20))))
"""


@CPU
def test_ctrl_c_stops_the_cpp_loop():
    assert_ctrl_c_stops(_LONG_LOOP)


def jacobi_history(u, f, n):
    hist = []
    for _ in range(n):
        un = u.copy()
        u[1:-1] = 0.5 * (un[:-2] + un[2:] - f[1:-1])
        hist.append(np.abs(u - un).max())       # a sink: the C++ loop collects it
    return u, hist


def counting(x, n):
    flips = 0
    for _ in range(n):
        x = x * -1.5 + 0.25
        flips += int((x > 0).sum())
    return x, flips


@CPU
@pytest.mark.parametrize("n", [8, 30])
def test_bodies_handing_values_to_python_run_in_cpp(n):
    """A body whose sinks hand Python a value per iteration (hist.append, += int())
    runs in the C++ loop too: the values are collected per iteration and Python
    applies the statements afterwards, in order, with NumPy's types."""
    u0, f = make((20,), np.float64), make((20,), np.float64, seed=3)
    got_u, got_h = npcompile.jit(jacobi_history, choose=False)(u0.copy(), f, n)
    exp_u, exp_h = jacobi_history(u0.copy(), f, n)
    np.testing.assert_array_equal(got_u, exp_u)
    assert [type(v) for v in got_h] == [type(v) for v in exp_h] and got_h == exp_h
    assert _in_cpp(npcompile.report()), npcompile.report()["loops"]
    npcompile.reset()
    check(counting, make((9,), np.float64), n)
    npcompile.jit(counting, choose=False)(make((9,), np.float64), n)
    assert _in_cpp(npcompile.report()), npcompile.report()["loops"]


def walk(x, steps, seed):
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        x = x + rng.standard_normal(x.shape) * 0.1     # a draw per run, in the loop's order
        x = np.clip(x, -1.0, 1.0)
    return x, rng.random()      # the generator's state after the loop is NumPy's too


def noisy_rows(Y, seed):
    rng = np.random.default_rng(seed)
    for t in range(1, Y.shape[0]):
        Y[t] = 0.9 * Y[t - 1] + rng.normal(0.0, 1.0, Y.shape[1])   # views and draws
    return Y


def noisy_while(x, tol, seed):
    rng = np.random.default_rng(seed)
    err = 1.0
    while err > tol:
        x = 0.5 * x + 0.01 * rng.random(x.shape)
        err = np.abs(x).max()
    return x, err


@pytest.mark.parametrize("n", [8, 40])
def test_random_draws_inside_the_cpp_loop(n):
    check(walk, make((30,), np.float64), n, 3)
    check(noisy_rows, np.zeros((n, 6)), 4)
    check(noisy_while, make((20,), np.float64), 0.03, 5)
    if COMPILED and DEVICE == "cpu":
        for fn, args in ((walk, (make((30,), np.float64), n, 3)),
                         (noisy_while, (make((20,), np.float64) * 1e3, 0.03, 5))):
            npcompile.reset()
            npcompile.jit(fn, choose=False)(*args)
            rep = npcompile.report()
            assert not rep["fallbacks"] and _in_cpp(rep), rep["loops"]


def rotate3(u0, n):
    prev, u, nxt = u0.copy(), u0.copy(), np.zeros_like(u0)
    for _ in range(n):
        nxt[1:-1] = 2 * u[1:-1] - prev[1:-1] + 0.25 * (u[2:] - 2 * u[1:-1] + u[:-2])
        prev, u, nxt = u, nxt, prev      # buffers rotate: arguments moved, not outputs
    return u, prev, nxt


def rotate_while(a, b, tol):
    while np.abs(a - b).max() > tol:
        a, b = b, 0.5 * (a + b)
    return a, b


@pytest.mark.parametrize("n", [8, 9, 41])
def test_buffers_rotating_between_iterations(n):
    check(rotate3, make((30,), np.float64), n)
    check(rotate_while, make((10,), np.float64), make((10,), np.float64, seed=3), 1e-9)
    if COMPILED and DEVICE == "cpu":
        npcompile.reset()
        npcompile.jit(rotate3, choose=False)(make((30,), np.float64), n)
        rep = npcompile.report()
        assert not rep["fallbacks"] and _in_cpp(rep), rep["loops"]
