"""A C++ loop whose body writes a whole array into an argument (a stencil step
`u[1:-1] = ...`, which computes all of u anew) hands the new array to the next run in
place of a copy, and the caller's array gets the last value when the loop ends, however
it ends (StepProgram.run_loop's Rebound). Against eager NumPy: values, in-place
arguments, what the results share memory with, and loops stopped part-way."""
import copy

import numpy as np
import pytest

import npcompile
from conftest import DEVICE, check, make
from test_trace_loops import COMPILED

CPU = pytest.mark.skipif(not COMPILED or DEVICE == "cuda",
                         reason="the C++ loop drives the CPU's compiled kernels")


@pytest.fixture(autouse=True)
def _bodies(bodies_compiled_once):
    """Small arrays: the body compiled once, not the loop nest."""


def heat(u, r, steps):
    for _ in range(steps):
        u[1:-1] = u[1:-1] + r * (u[2:] - 2 * u[1:-1] + u[:-2])
    return u


def heat_and_view(u, steps):
    """x, a view of u made in the loop, must see every later update of u."""
    x = u[::2]
    for _ in range(steps):
        u[1:-1] = 0.5 * (u[2:] + u[:-2])
        x = u[::3]
    return u, x


def two_arrays(u, w, steps):
    for _ in range(steps):
        u[1:-1] = 0.5 * (u[2:] + u[:-2]) + 0.01 * w[1:-1]
        w[1:-1] = w[1:-1] - 0.1 * u[1:-1]
    return u, w


def with_time(u, steps):
    t = 0.0
    for _ in range(steps):
        u[1:-1] = u[1:-1] + 0.1 * (u[2:] - 2 * u[1:-1] + u[:-2]) * np.cos(t)
        t = t + 0.5
    return u, t


def blows_up(u, steps):
    """Doubles until an element no longer fits int64: the kernel's checked cast stops
    the C++ loop there and NumPy runs the rest (its warning, its values)."""
    k = np.zeros(u.shape, np.int64)
    for _ in range(steps):
        u[1:-1] = u[1:-1] * 1e30 + u[:-2]
        k = u.astype(np.int64)
    return u, k


def until_still(u, tol):
    """A while loop: its condition runs in Python after each run in C++."""
    err = 1.0
    while err > tol:
        old = u[1:-1, 1:-1].copy()
        u[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
        err = np.max(np.abs(u[1:-1, 1:-1] - old))
    return u


def until_kept(u, tol):
    """The condition's Python part keeps u every run: a copy into u, not a rebinding."""
    seen = []
    err = 1.0
    while err > tol:
        un = u.copy()
        u[1:-1] = 0.5 * (un[2:] + un[:-2])
        err = np.abs(u - un).max()
        seen.append(u)
    return u, len(seen), all(x is u for x in seen)


def snapshots(u0, r, steps, every):
    """A branch in Python between runs reads u: the caller's array must be current
    there (a rebinding left the frames as they were at the loop's start)."""
    u = u0.copy()
    frames, heat = [], []
    for n in range(steps):
        u[1:-1] = u[1:-1] + r * (u[2:] - 2.0 * u[1:-1] + u[:-2])
        if n % every == 0:
            frames.append(u.copy())
            heat.append(u.sum())
    return np.array(frames), np.array(heat)


def until_reads_u(u):
    """COND reads the written array itself."""
    n = 0
    while u[len(u) // 2] < 0.5:
        u[1:-1] = 0.5 * (u[2:] + u[:-2])
        n += 1
    return u, n


def exit_reads_u(u, steps):
    """An exit test on the written array, in Python after each run."""
    for k in range(steps):
        u[1:-1] = 0.5 * (u[2:] + u[:-2])
        if u[len(u) // 2] > 0.4:
            break
    return u, k


def with_history(u, steps):
    """An indexed loop (its views made per run from `total`, not from u)."""
    total = np.zeros(steps)
    for k in range(steps):
        u[1:-1] = u[1:-1] + 0.2 * (u[2:] - 2 * u[1:-1] + u[:-2])
        total[k] = u.sum()
    return u, total


def reads_a_row(u, hist, steps):
    """The views made per run are of u itself: u must be current when they are made."""
    for k in range(steps):
        u[:, 1:-1] = 0.5 * (u[:, 2:] + u[:, :-2])
        hist[k] = u[k, 1:3]
    return u, hist


def _plate(n):
    u = np.zeros((n, n))
    u[0] = 1.0
    return u


CASES = [
    (with_history, lambda: (make((300,), np.float64), 40)),
    (reads_a_row, lambda: (make((40, 30), np.float64), np.zeros((40, 2)), 40)),
    (snapshots, lambda: (np.exp(-np.linspace(-3, 3, 400) ** 2), 0.4, 200, 20)),
    (until_reads_u, lambda: (np.r_[1.0, np.zeros(30), 1.0],)),
    (exit_reads_u, lambda: (np.r_[1.0, np.zeros(30), 1.0], 10000)),
    (until_still, lambda: (_plate(12), 1e-3)),
    (until_kept, lambda: (np.linspace(0.0, 1.0, 40) ** 3, 1e-5)),
    (heat, lambda: (make((200,), np.float64), 0.3, 40)),
    (heat, lambda: (make((200,), np.float32), np.float32(0.3), 40)),
    (heat_and_view, lambda: (make((120,), np.float64), 30)),
    (two_arrays, lambda: (make((150,), np.float64), make((150,), np.float64, 1), 30)),
    (with_time, lambda: (make((100,), np.float64), 30)),
    (blows_up, lambda: (np.linspace(0.5, 1.0, 64), 30)),
]


@pytest.mark.parametrize("fn,args", CASES, ids=[f"{f.__name__}{i}" for i, (f, _) in enumerate(CASES)])
def test_values_and_arguments_as_numpy(fn, args):
    check(fn, *args())


@CPU
def test_the_loop_ran_in_cpp_and_the_result_is_the_callers_array():
    u = make((300,), np.float64)
    f = npcompile.jit(heat, choose=False)
    npcompile.reset()
    for _ in range(3):
        mine, theirs = u.copy(), u.copy()
        got = f(mine, 0.25, 50)
        assert got is mine
        assert np.array_equal(got, heat(theirs, 0.25, 50))
    loops = [l["summary"] for l in npcompile.report()["loops"]]
    assert any("in one C++ loop" in s for s in loops), loops


@CPU
def test_a_view_made_in_the_loop_views_the_callers_array():
    u = make((120,), np.float64)
    f = npcompile.jit(heat_and_view, choose=False)
    for _ in range(3):
        mine = u.copy()
        got_u, got_x = f(mine, 30)
        assert got_u is mine and np.shares_memory(got_x, mine)
        exp_u, exp_x = heat_and_view(u.copy(), 30)
        assert np.array_equal(got_x, exp_x) and np.array_equal(got_u, exp_u)


@CPU
def test_a_loop_stopped_part_way_leaves_the_callers_array_as_numpy_does():
    u = np.linspace(0.5, 1.0, 64)
    f = npcompile.jit(blows_up, choose=False)
    for _ in range(3):
        mine, theirs = u.copy(), u.copy()
        with np.errstate(all="ignore"):
            got = f(mine, 30)
            exp = blows_up(theirs, 30)
        assert got[0] is mine
        assert np.array_equal(mine, theirs)
        assert np.array_equal(got[1], exp[1])
