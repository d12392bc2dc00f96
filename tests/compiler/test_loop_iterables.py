"""Loops over arrays by their elements (`for x in X`, `enumerate`, `zip`) run as indexed
loops compiled once (api/loop_iterables.py), where X is an array; anything else (a list,
a generator, a 0-d array) runs as written. Checked against eager NumPy on values,
in-place writes through the elements, errors and what the loop leaves bound."""
import numpy as np
import pytest

import npcompile
from conftest import DEVICE, check, make
from test_trace_loops import COMPILED

CPU = pytest.mark.skipif(not COMPILED or DEVICE == "cuda",
                         reason="the loop's body compiles for the CPU here")


def smoother(obs, alpha):
    est = np.empty(len(obs))
    level = np.zeros(3)
    for t, y in enumerate(obs):
        level = alpha * level + (1 - alpha) * y
        est[t] = level.sum() + 0.01 * t
    return est, level, t, y


def row_energy(A):
    acc = np.zeros(A.shape[1])
    for row in A:
        acc = acc + row * row
    return acc, row


def scale_rows(A):
    for row in A:
        row *= 2.0          # a view: A changes, as NumPy's iteration has it
        row += 1.0
    return A


def paired(A, B):
    acc = np.zeros(A.shape[1])
    for a, b in zip(A, B):  # the shorter decides
        acc = 0.5 * acc + a * b
    return acc


def over_a_list(L):
    acc = np.zeros(3)
    for v in L:
        acc = acc + v
    return acc


def over_nothing(A):
    acc = np.zeros(3)
    for v in A:
        acc = acc + v
    return acc


def _loops(fn, *args):
    npcompile.reset()
    npcompile.jit(fn, choose=False)(*args)
    return [lp["summary"] for lp in npcompile.report()["loops"]]


@CPU
def test_enumerate_over_an_array_compiles_once():
    obs = make((60, 3), np.float64)
    check(smoother, obs, 0.8)
    loops = _loops(smoother, obs, 0.8)
    assert any("60 iterations, one compiled body" in s for s in loops), loops


@CPU
def test_rows_and_zip():
    A, B = make((50, 4), np.float64), make((40, 4), np.float64, seed=1)
    check(row_energy, A)
    check(scale_rows, A)
    check(paired, A, B)
    check(paired, B, A)
    for fn, args in ((row_energy, (A,)), (paired, (A, B))):
        loops = _loops(fn, *args)
        # compiled once: a body, or a loop nest of the rows as views
        assert any("one compiled body" in s or "runs as one compiled function" in s
                   for s in loops), loops


def test_what_is_not_an_array_runs_as_written():
    check(over_a_list, [np.full(3, float(i)) for i in range(12)])
    check(over_nothing, np.zeros((0, 3)))
    check(over_nothing, np.array(5.0))      # NumPy's TypeError: a 0-d array
    check(over_nothing, make((10, 3), np.float64))


def test_a_shadowed_builtin_is_left_alone():
    def enumerate(x):       # the user's own: not the builtin
        return [(0, x[0])] * 9

    def fn(A):
        acc = np.zeros(A.shape[1])
        for i, row in enumerate(A):
            acc = acc + row * i
        return acc
    check(fn, make((10, 3), np.float64))


def horner(coeffs, x):
    y = np.zeros_like(x)
    for c in coeffs:
        y = y * x + c
    return y


@CPU
def test_a_few_elements_fuse_as_written():
    # 12 coefficients: traced as written, the chain is one kernel (a body compiled once
    # would be 12 kernels and 12 arrays)
    x = make((1000,), np.float64)
    check(horner, make((12,), np.float64), x)
    npcompile.reset()
    npcompile.jit(horner, choose=False)(make((12,), np.float64), x)
    rep = npcompile.report()
    assert not rep["fallbacks"] and len(rep["compiles"]) == 1, rep["compiles"]
    assert rep["compiles"][0]["kernels"] == 1, rep["compiles"]


def kalman(zs, dt, q, r):
    F = np.array([[1, dt], [0, 1]])
    H = np.array([[1.0, 0.0]])
    Q = q * np.array([[dt**3 / 3, dt**2 / 2], [dt**2 / 2, dt]])
    x, P = np.zeros((2, 1)), np.eye(2) * 500.0
    xs = np.zeros((len(zs), 2))
    for k, z in enumerate(zs):
        x = F @ x
        P = F @ P @ F.T + Q
        K = P @ H.T @ np.linalg.inv(H @ P @ H.T + r)
        x = x + K @ (z - H @ x)
        P = (np.eye(2) - K @ H) @ P
        xs[k] = x.ravel()
    return xs, P


def unraveled(zs):
    P = np.eye(2)
    out = np.zeros((len(zs), 4))
    for k, z in enumerate(zs):
        P = P.T * 0.5 + z       # (transposed: NumPy's own layout of the result decides
        out[k] = P.ravel()      # whether its ravel is a view or a copy)
    return out


@CPU
def test_a_body_that_cannot_replay_leaves_the_call_free_to():
    # its body makes no plan (its graph runs on the reference path, where NumPy settles
    # the layout): from the next call on the loop runs as written, and the call as a
    # whole replays (a Kalman filter had 0.05x NumPy, traced in full at every call)
    zs = np.cumsum(make((40,), np.float64)) * 0.1
    check(unraveled, zs)
    j = npcompile.jit(unraveled, choose=False)
    for _ in range(3):
        got = j(zs)
    np.testing.assert_allclose(got, unraveled(zs), rtol=1e-12)
    assert not j.replay_refusals, j.replay_refusals


@CPU
def test_a_kalman_filter_compiles_its_body_once():
    """`xs[k] = x.ravel()` of the (2, 1) state: one layout in any axis order, so the
    body's graph runs compiled and the loop runs in C++ (it was traced per iteration)."""
    zs = np.cumsum(make((40,), np.float64)) * 0.1
    check(kalman, zs, 0.1, 0.01, 0.5)
    npcompile.reset()
    npcompile.jit(kalman, choose=False)(zs, 0.1, 0.01, 0.5)
    rep = npcompile.report()
    assert not rep["fallbacks"]
    assert any("one compiled body" in lp["summary"] and "C++ loop" in lp["summary"]
               for lp in rep["loops"]), [lp["summary"] for lp in rep["loops"]]
