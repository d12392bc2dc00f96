"""`for` loops whose body holds `if` statements among straight-line code (api/loop_split.py):
the straight-line parts compile once, the tests and the branches they pick run in Python.
Checked against eager NumPy on values, dtypes, scalar types, in-place arguments, errors
and the names the loop leaves bound, and for the parts compiling once (no graph per
iteration, no break per test)."""
import numpy as np
import pytest

import npcompile
from conftest import DEVICE, check, make
from test_trace_loops import COMPILED


def snapshots(u, n):
    snaps = []
    for step in range(n):
        u = u + 0.1 * (np.roll(u, 1) - 2 * u + np.roll(u, -1))
        if step % 4 == 0:                   # the loop variable in a test
            snaps.append(u.copy())
    return u, np.array(snaps)


def resample(w, x, n, seed):
    rng = np.random.default_rng(seed)
    for _ in range(n):
        w = w * np.exp(-0.5 * (x - 0.3) ** 2)
        w = w / w.sum()
        neff = 1.0 / np.sum(w ** 2)
        if neff < 0.6 * w.size:            # data decides: plain Python when it holds
            idx = np.searchsorted(np.cumsum(w), rng.random(w.size))
            idx = np.minimum(idx, w.size - 1)
            x = x[idx] + 0.01 * rng.standard_normal(w.size)
            w = np.full(w.size, 1.0 / w.size)
        x = 0.9 * x
    return w, x, neff


def clamp_or_grow(x, n):
    for _ in range(n):
        m = x.max()
        if m > 4.0:
            x *= 0.5                        # in place, on the caller's array
        elif m > 2.0:
            x += 0.1
        else:
            x[:] = x * 1.5
        total = x.sum()
    return x, total, m


def branch_temporaries(A, n):
    for k in range(n):
        A = A * 0.99 + 0.01
        s = A.sum()
        if s > A.size * 0.5:
            tmp = A[0].copy()               # bound in the branch before it is read
            A[0] = A[-1]
            A[-1] = tmp
    return A, s


def unbound_in_branch(x, n):
    for k in range(n):
        x = x * 1.1
        if x.max() > 3.0:
            y = never_bound + 1             # noqa: F821  (NameError, as in Python)
    return x


@pytest.mark.parametrize("n", [8, 21])
def test_tests_on_the_loop_variable_and_on_data(n):
    check(snapshots, make((16,), np.float64), n)
    check(snapshots, make((16,), np.float32), n)
    check(resample, np.full(50, 0.02), make((50,), np.float64), n, 3)


@pytest.mark.parametrize("n", [8, 30])
def test_elif_chains_and_in_place_updates(n):
    check(clamp_or_grow, make((12,), np.float64) + 1.0, n)
    check(branch_temporaries, make((4, 3), np.float64), n)


def test_errors_in_a_branch_are_pythons():
    check(unbound_in_branch, make((5,), np.float64), 20)


@pytest.mark.skipif(not COMPILED or DEVICE == "cuda", reason="compiled CPU path not in use")
def test_the_straight_line_parts_compile_once():
    npcompile.reset()
    npcompile.jit(resample, choose=False)(np.full(50, 0.02), make((50,), np.float64), 40, 3)
    rep = npcompile.report()
    assert not rep["fallbacks"] and not rep["graph_breaks"], rep["graph_breaks"][:2]
    loop = [lp["summary"] for lp in rep["loops"] if "range" in lp["text"]]
    assert loop and "40 iterations; its 2 straight-line part(s) compiled once" in loop[0], \
        rep["loops"]
    parts = [t for t in rep["traces"] if "part of the loop" in t["function"]]
    assert len(parts) <= 4, len(parts)      # each part traced once or twice, not per iteration


def found_late(x, n, limit):
    for _ in range(n):
        x = x * 1.2
        if x.max() > limit:
            found = x.copy()                # bound on one path only, read after the loop
    return x, found


@pytest.mark.parametrize("limit", [2.0, 1e9])
def test_a_name_bound_on_one_path_only(limit):
    check(found_late, make((6,), np.float64) + 1.0, 12, limit)   # 1e9: UnboundLocalError


def sieve(n):
    is_prime = np.ones(n + 1, dtype=bool)
    is_prime[:2] = False
    for p in range(2, int(n ** 0.5) + 1):
        if is_prime[p]:                     # nothing but the if: plain NumPy per iteration
            is_prime[p * p::p] = False
    return np.nonzero(is_prime)[0]


def test_a_body_that_is_only_an_if():
    check(sieve, 200)
    if not COMPILED:
        return      # (the reference path runs such a loop as written: a break per test)
    npcompile.reset()
    npcompile.jit(sieve, choose=False)(200)
    rep = npcompile.report()
    # none per iteration, and np.nonzero's returned indices are the graph's last step
    assert not rep["graph_breaks"] or DEVICE == "cuda", rep["graph_breaks"][:2]


@pytest.mark.skipif(not COMPILED or DEVICE == "cuda", reason="the C++ loop is the CPU's")
@pytest.mark.parametrize("n", [9, 60])
def test_a_step_then_ifs_runs_in_the_cpp_loop(n):
    """One straight-line part first, then ifs: the part runs in C++, its ifs after each
    run in Python; a branch rebinding what the part reads ends the C++ run there."""
    check(snapshots, make((16,), np.float64), n)
    check(clamp_after_step, make((16,), np.float64), n)
    npcompile.reset()
    npcompile.jit(snapshots, choose=False)(make((16,), np.float64), n)
    rep = npcompile.report()
    loop = [lp["summary"] for lp in rep["loops"] if "range" in lp["text"]]
    assert loop and "in one C++ loop" in loop[0], rep["loops"]


def clamp_after_step(x, n):
    hist = []
    for k in range(n):
        x = 0.5 * (x + np.roll(x, 1)) + 0.3
        if x.max() > 1.0:
            x = x - 0.5             # rebinds what the step reads: C++ stops, Python goes on
        if k % 3 == 0:
            hist.append(x.sum())
    return x, hist


def attractor(r, iters, keep):
    """A logistic map's attractor: np.fmod of a slice is not a loop nest's (so the nest
    declines at run time), the `if` tests the loop's numbers only."""
    x = 1e-5 * np.ones_like(r)
    lyap = np.zeros_like(r)
    out = np.empty((keep, r.size))
    for i in range(iters):
        x = r * x * (1 - x)
        lyap += np.log(abs(r - 2 * r * x)) * np.fmod(x - 0.5, 0.75)
        if i >= iters - keep:
            out[i - (iters - keep)] = x
    return out, lyap / iters


@pytest.mark.parametrize("iters", [3, 12, 40])
def test_a_declined_nest_with_ifs_values(iters):
    check(attractor, np.linspace(2.5, 4.0, 33), iters, 3)


@pytest.mark.skipif(not COMPILED or DEVICE == "cuda", reason="compiled CPU path not in use")
def test_a_declined_nest_with_ifs_is_split_not_written_out():
    """Where the scalar nest declines, the loop's straight-line parts are compiled once
    each (before, the whole loop was written out into one graph: 200 steps, 1855 ops,
    0.6 s cold, and four times the steps four times the graph); four times the steps
    compile nothing more."""
    compiles = []
    for iters in (50, 200):
        npcompile.reset()
        npcompile.jit(attractor, choose=False)(np.linspace(2.5, 4.0, 64), iters, 5)
        rep = npcompile.report()
        assert not rep["fallbacks"] and not rep["graph_breaks"], rep["graph_breaks"][:2]
        loop = [lp["summary"] for lp in rep["loops"] if "range" in lp["text"]]
        assert any(f"{iters} iterations; its 1 straight-line part(s) compiled once" in s
                   for s in loop), loop
        assert max(c["ops"] for c in rep["compiles"]) < 50, rep["compiles"]
        compiles.append(len(rep["compiles"]))
    assert compiles[0] == compiles[1]


def test_a_split_loop_is_a_step_and_the_call_replays():
    """A split loop with no list among its values is a step of the call's plan
    (api/loop_step.record_split): later calls replay, running its compiled part and its
    ifs in Python again, with NumPy's values, whichever branches the data takes. (Its
    glue's locals() made the call as a whole refuse to replay.)"""
    from npcompile.records import SESSION
    if DEVICE != "cpu":
        pytest.skip("plans of steps are the CPU's")
    j = npcompile.jit(branch_temporaries, choose=False)
    replayed = []
    for low in (0.0, 0.0, 0.0, -5.0, 0.0):
        A = np.linspace(low, 1.0, 60).reshape(6, 10)
        mine = A.copy()
        want = branch_temporaries(A, 12)
        got = j(mine, 12)
        for g, w in zip(got, want):
            assert type(g) is type(w)
            np.testing.assert_array_equal(g, w)
        np.testing.assert_array_equal(mine, A)
        replayed.append(bool(SESSION.traces[-1].get("replay")))
    assert replayed[1:3] == [True, True], (replayed, j.replay_refusals)
