"""A loop variable read as a number (`np.cos(w * t * dt)`, `out[mask] = i`, Adam's
`b1 ** t`) is handed to the body compiled once as a 0-d array, an input of its graph:
one compile however many iterations, where the Python int made a graph per iteration.
Where a NumPy scalar would not do what the Python int does (promotion with float32,
Python's ZeroDivisionError, an int that does not overflow, a number handed back), the
body is refused before anything of it ran and the loop is traced as written: checked
against eager NumPy on values, dtypes, scalar types, errors and random streams."""
import numpy as np
import pytest

import npcompile
from conftest import DEVICE, check, make
from test_trace_loops import COMPILED

CPU = pytest.mark.skipif(not COMPILED or DEVICE == "cuda",
                         reason="the loop's body compiles for the CPU here")


@pytest.fixture(autouse=True)
def _bodies(bodies_compiled_once):
    """Small arrays: the body compiled once, not the loop nest that would take them
    (`u = u + dt * (np.cos(w * t * dt) - u)` is one: codegen/scalar_nest_arrays.py)."""


def forcing(u, dt, w, steps):
    for t in range(steps):
        u = u + dt * (np.cos(w * t * dt) - u)
    return u


def first_escape(z, c, out, n):
    for i in range(n):
        z = z * z + c
        gone = (np.abs(z) > 2.0) & (out == 0)
        out[gone] = i
        z[np.abs(z) > 2.0] = 0
    return out


def adam(A, y, steps):
    lr, b1, b2, eps = 1e-2, 0.9, 0.999, 1e-8
    w = np.zeros(A.shape[1])
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    for t in range(1, steps + 1):
        g = A.T @ (A @ w - y) / len(y)
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        w -= lr * (m / (1 - b1 ** t)) / (np.sqrt(v / (1 - b2 ** t)) + eps)
    return w


def ramp(u, steps):
    for k in range(steps):
        u = u + (k // 3) * 0.5 - (k % 4)
    return u


def float32_state(u, steps):
    for t in range(steps):
        u = u + 0.5 * t         # float32 stays float32 with a Python int (NumPy 2)
    return u


def hands_back(u, steps, dt):
    for t in range(steps):
        u = u + 1.0
        time = t * dt           # a Python float after the loop
    return u, time


def divides(u, steps):
    for t in range(steps):
        u += 1.0 / t            # t = 0: ZeroDivisionError before u changes
    return u


def squares(u, steps):
    for t in range(steps):
        u = u + t * t - (t * 3) // 2    # in int64's range for any such loop
    return u


def doubling(u, steps):
    k = 1
    for t in range(steps):
        u = u + 1.0
        k = k * 2               # a Python int does not overflow; an int64 would
    return u, k


def noisy32(u, steps, seed):
    rng = np.random.default_rng(seed)
    for t in range(steps):
        u = u + rng.normal(size=u.shape).astype(np.float32) * np.float32(0.1) + t
    return u, rng.random()


def clock(u, dt, steps):
    t = 0.0                     # a Python float all along: one again after the loop
    k = 0
    for n in range(steps):
        u = u + dt * (np.sin(t) - u) + 1e-3 * k
        t += dt
        k = k + 1
    return u, t, k


def clock_and_sum(u, steps):
    t, s = 0.0, 0.0
    for n in range(steps):
        u = u * 0.9 + t
        t = t + 0.25
        s = s + u.sum()         # a NumPy scalar from the first iteration on
    return u, t, s


def recorded_times(u, dt, steps):
    t, ts = 0.0, []
    for n in range(steps):
        u = u + t
        t += dt
        ts.append(t)
    return u, ts


def decaying_rate(w, X, y, epochs):
    lr0, decay = 0.1, 0.05
    for epoch in range(epochs):
        lr = lr0 / (1.0 + decay * epoch)        # never 0: no ZeroDivisionError to keep
        w = w - lr * X.T @ (X @ w - y) / len(y) / np.sqrt(epoch + 1)
        phase = np.sin(0.1 * epoch)             # a NumPy scalar as written too
    return w, phase


def _loops(fn, *args):
    npcompile.reset()
    npcompile.jit(fn, choose=False)(*args)
    rep = npcompile.report()
    return rep, [lp["summary"] for lp in rep["loops"]]


@CPU
@pytest.mark.parametrize("steps", [9, 40, 160])
def test_a_forcing_term_compiles_once(steps):
    u = np.linspace(0.0, 1.0, 300)
    check(forcing, u, 0.01, 3.0, steps)
    rep, loops = _loops(forcing, u, 0.01, 3.0, steps)
    assert any(f"{steps} iterations, one compiled body" in s for s in loops), loops
    assert not rep["fallbacks"] and not rep["graph_breaks"]
    # one body (and the last iteration's), whatever the number of steps
    assert len(rep["compiles"]) <= 2, rep["compiles"]


@CPU
def test_the_loop_value_written_into_an_array():
    z = (np.linspace(-1.5, 1.5, 400) + 0.4j).astype(np.complex128)
    out = np.zeros(400, np.int64)
    check(first_escape, z, -0.7 + 0.27j, out, 30)
    _, loops = _loops(first_escape, z.copy(), -0.7 + 0.27j, out.copy(), 30)
    assert any("30 iterations, one compiled body" in s for s in loops), loops


@CPU
def test_powers_by_the_step_count():
    rng = np.random.default_rng(1)
    A, y = rng.random((60, 5)), rng.random(60)
    check(adam, A, y, 25)
    _, loops = _loops(adam, A, y, 25)
    assert any("25 iterations, one compiled body" in s for s in loops), "\n".join(loops)


@CPU
def test_integer_arithmetic_on_the_index():
    check(ramp, make((50,), np.float64), 20)
    check(ramp, make((50,), np.int64), 20)
    check(squares, make((50,), np.int64), 20)
    for fn in (ramp, squares):
        _, loops = _loops(fn, make((50,), np.float64), 20)
        assert any("one compiled body" in s for s in loops), loops


def test_a_doubling_int_runs_as_written_past_int64():
    got = check(doubling, make((10,), np.float64), 80)
    assert type(got[1]) is int and got[1] == 2 ** 80


@pytest.mark.parametrize("fn, args, why", [
    (float32_state, (make((40,), np.float32), 12), ""),
    (hands_back, (make((40,), np.float64), 12, 0.1), "hands back"),
    (divides, (make((40,), np.float64), 12), "divides"),
    (doubling, (make((40,), np.float64), 12), "outgrow int64"),
])
def test_where_a_numpy_scalar_differs_the_loop_runs_as_written(fn, args, why):
    check(fn, *args)
    if not COMPILED or DEVICE == "cuda":
        return
    try:
        _, loops = _loops(fn, *args)
    except ZeroDivisionError:
        return      # as NumPy, and check() saw the same
    assert not any("12 iterations, one compiled body" in s for s in loops), loops
    assert any(why in s for s in loops), loops


def test_a_refused_body_draws_nothing_twice():
    # refused (float32) after drawing: the generator is put back, so the loop as
    # written draws the same numbers eager NumPy does, and the stream goes on alike
    check(noisy32, make((30,), np.float32), 10, 5)


def test_the_refusal_does_not_stop_later_calls_replaying():
    rng = np.random.default_rng(2)
    x = rng.random(30).astype(np.float32)
    j = npcompile.jit(float32_state, choose=False)
    for _ in range(3):
        got = j(x.copy(), 10)
    exp = float32_state(x.copy(), 10)
    assert got.dtype == exp.dtype and np.array_equal(got, exp)
    if COMPILED and DEVICE != "cuda":
        assert not j.replay_refusals, j.replay_refusals


@CPU
@pytest.mark.parametrize("steps", [9, 60])
def test_carried_python_numbers_go_in_as_inputs(steps):
    u = np.linspace(0.0, 1.0, 200)
    got = check(clock, u, 0.01, steps)
    assert type(got[1]) is float and type(got[2]) is int
    got = check(clock_and_sum, u, steps)
    assert type(got[1]) is float and type(got[2]) is np.float64
    for fn, args in ((clock, (u, 0.01, steps)), (clock_and_sum, (u, steps))):
        rep, loops = _loops(fn, *args)
        assert any(f"{steps} iterations, one compiled body" in s for s in loops), loops
        assert len(rep["compiles"]) <= 3, rep["compiles"]


def clock_in_bursts(y, dt, n, bursts):
    t = 0.0
    for _ in range(bursts):
        for _ in range(n):
            y = y + dt * np.cos(t) * y
            t += dt
    return y, t


@CPU
def test_a_loop_entered_again_hands_in_its_carried_number_at_once():
    """The iteration traced as written to see `t += dt` stay a float is traced at the
    first entry only: at each later one it was traced again, a graph of its own with t
    a constant, compiled once per entry (pendulum_rk2: 31 compiles a call)."""
    got = check(clock_in_bursts, np.linspace(0.0, 1.0, 50), 0.01, 10, 6)
    assert type(got[1]) is float
    npcompile.reset()
    npcompile.jit(clock_in_bursts, choose=False)(np.linspace(0.0, 1.0, 50), 0.01, 10, 6)
    assert len(npcompile.report()["compiles"]) <= 3, npcompile.report()["compiles"]


def test_a_carried_number_handed_to_a_list_runs_as_written():
    got = check(recorded_times, make((20,), np.float64), 0.5, 12)
    assert all(type(t) is float for t in got[1])


@CPU
def test_division_by_a_positive_number_and_numpy_scalars_handed_back():
    rng = np.random.default_rng(3)
    X, y = rng.random((40, 4)), rng.random(40)
    got = check(decaying_rate, np.zeros(4), X, y, 30)
    assert type(got[1]) is np.float64
    _, loops = _loops(decaying_rate, np.zeros(4), X, y, 30)
    assert any("30 iterations, one compiled body" in s for s in loops), loops
