"""Random numbers join the trace (trace/random_rules.py): what is computed from them
compiles, the stream is NumPy's own, and a replayed call or loop body draws anew, in
the same order, from the generator it is handed."""
import os

import numpy as np
import pytest

import npcompile
from conftest import DEVICE, check
from npcompile.api.loop_runner import LOOP_MIN
from test_trace_loops import COMPILED


def monte_carlo(seed, n):
    rng = np.random.default_rng(seed)
    x = rng.random(n)
    y = rng.uniform(-1.0, 1.0, n)
    return 4.0 * np.sum(x * x + y * y <= 1.0) / n, rng.normal(size=3) * 2.0


def legacy(n):
    a = np.random.normal(0.0, 1.0, n)
    b = np.random.rand(n)
    return np.exp(-a * a) * np.cos(b), np.random.randint(0, 5, 4) + 1


def walk(seed, steps, n):
    rng = np.random.default_rng(seed)
    pos = np.zeros(n)
    for _ in range(steps):          # a body that draws: replayed, drawing anew
        pos += rng.standard_normal(n) * 0.1
    return pos


@pytest.mark.parametrize("seed", [0, 7])
def test_generator_draws_are_numpys_and_what_follows_compiles(seed):
    npcompile.reset()
    check(monte_carlo, seed, 5000)
    rep = npcompile.report()
    assert not rep["fallbacks"]
    if COMPILED:
        assert sum(c["kernels"] for c in rep["compiles"]) >= 1


def test_legacy_functions_follow_the_global_seed():
    np.random.seed(11)
    want = legacy(100)
    np.random.seed(11)
    got = npcompile.jit(legacy, device=DEVICE)(100)
    for g, w in zip(got, want):
        g = g.get() if hasattr(g, "get") else g
        np.testing.assert_allclose(g, w, rtol=1e-13)
        assert g.dtype == w.dtype


@pytest.mark.parametrize("steps", [3, 12])
def test_draws_inside_a_loop(steps):
    check(walk, 3, steps, 16)


def test_no_replay_each_call_draws_anew():
    j = npcompile.jit(monte_carlo, device=DEVICE, choose=False)
    first = j(1, 1000)[1]
    second = j(2, 1000)[1]
    again = j(1, 1000)[1]
    get = (lambda v: v.get()) if hasattr(first, "get") else (lambda v: v)
    assert not np.array_equal(get(first), get(second))
    np.testing.assert_array_equal(get(first), get(again))


def test_outside_a_trace_numpy_is_untouched():
    npcompile.jit(monte_carlo)(0, 10)      # the patch is in place from the first trace on
    g = np.random.default_rng(5)
    assert type(g) is np.random.Generator
    assert np.array_equal(g.random(3), np.random.Generator(np.random.PCG64(5)).random(3))


def two_streams(seed, steps, n):
    """Two draws per iteration, of different kinds, one unused after the loop; the
    legacy global stream beside a generator's."""
    rng = np.random.default_rng(seed)
    x = np.zeros(n)
    v = np.zeros(n)
    for _ in range(steps):
        angle = rng.uniform(0.0, 2 * np.pi, n)
        kick = rng.normal(0.0, 0.1, size=n)
        noise = np.random.standard_normal(n)
        x += np.cos(angle) + kick
        v = 0.9 * v + 0.01 * noise
    return x, v


def draws_unused(seed, steps, n):
    rng = np.random.default_rng(seed)
    x = np.ones(n)
    for _ in range(steps):
        rng.random(3)                  # only advances the stream
        x = x * 0.5 + rng.random(n)
    return x


@pytest.mark.parametrize("steps", [LOOP_MIN, 3 * LOOP_MIN + 1])
def test_a_body_that_draws_replays_with_numpys_stream(steps):
    np.random.seed(5)
    want = two_streams(2, steps, 33)
    want_next = np.random.random()     # the global stream after the call
    np.random.seed(5)
    npcompile.reset()
    got = npcompile.jit(two_streams, device=DEVICE, choose=False)(2, steps, 33)
    assert np.random.random() == want_next
    for g, w in zip(got, want):       # the same draws (cos may differ in its last bit)
        g = g.get() if hasattr(g, "get") else g
        np.testing.assert_allclose(g, w, rtol=1e-13, atol=1e-15)
    check(draws_unused, 4, steps, 9)
    if COMPILED and DEVICE != "cuda":
        loops = [lp["summary"] for lp in npcompile.report()["loops"]]
        assert any(f"{steps} iterations, one compiled body" in s for s in loops), loops


@pytest.mark.skipif(not COMPILED or DEVICE == "cuda", reason="counts the CPU's compiles")
def test_a_body_that_draws_compiles_once():
    npcompile.reset()
    npcompile.jit(walk, choose=False)(3, 10, 16)
    short = len(npcompile.report()["compiles"])
    npcompile.reset()
    npcompile.jit(walk, choose=False)(3, 40, 16)
    rep = npcompile.report()
    assert len(rep["compiles"]) == short and not rep["fallbacks"]
    assert any("40 iterations, one compiled body" in lp["summary"] for lp in rep["loops"])


def draws_from_a_given_generator(rng, x, steps):
    for _ in range(steps):
        x = x + rng.standard_normal(x.shape)
    return x


def test_a_generator_handed_in_is_drawn_from_at_each_call():
    j = npcompile.jit(draws_from_a_given_generator, device=DEVICE, choose=False)
    for seed in (1, 2, 1):
        want = draws_from_a_given_generator(np.random.default_rng(seed), np.zeros(5), LOOP_MIN)
        got = j(np.random.default_rng(seed), np.zeros(5), LOOP_MIN)
        got = got.get() if hasattr(got, "get") else got
        np.testing.assert_array_equal(got, want)


def draws_with_an_array_argument(seed, mu, steps):
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        mu = rng.normal(mu, 0.1) * 0.5     # an array argument: traced every iteration
    return mu


def test_draws_with_array_arguments_are_numpys():
    check(draws_with_an_array_argument, 3, np.linspace(0, 1, 7), LOOP_MIN + 2)


def shuffled_rows(seed, x, n_perm):
    rng = np.random.default_rng(seed)
    y = x * 2.0                     # traced: permutation and choice read it in the graph
    out = np.empty((n_perm,) + x.shape[1:])
    for i in range(n_perm):
        p = rng.permutation(y)
        out[i] = p[:3].sum(axis=0) - p[3:].sum(axis=0)
    pick = rng.choice(y, size=4) + rng.choice(y, size=2, replace=False).sum(axis=0)
    return out, pick, rng.choice(y)


def legacy_shuffle(x):
    y = x + 1.0
    return np.random.permutation(y) * 3.0, np.random.choice(y[:, 0], 5)


@pytest.mark.parametrize("shape", [(9,), (7, 3)])
@pytest.mark.parametrize("seed", [1, 5])
def test_permutation_and_choice_of_traced_arrays_draw_numpys_rows(seed, shape):
    """rng.permutation(x) and rng.choice(x, ...) of an array the trace computed: the
    indices are drawn as NumPy draws them (the same stream), the rows gathered in the
    graph; NumPy's own call read x (np.may_share_memory), a graph break per draw."""
    x = np.random.default_rng(0).standard_normal(shape)
    npcompile.reset()
    check(shuffled_rows, seed, x, LOOP_MIN + 2)
    rep = npcompile.report()
    assert not rep["graph_breaks"] and not rep["fallbacks"]
    if COMPILED:
        assert sum(c["kernels"] for c in rep["compiles"]) >= 1


def test_legacy_permutation_and_choice_of_traced_arrays():
    x = np.random.default_rng(2).standard_normal((6, 2))
    np.random.seed(3)
    want = legacy_shuffle(x)
    np.random.seed(3)
    npcompile.reset()
    got = npcompile.jit(legacy_shuffle, device=DEVICE)(x)
    for g, w in zip(got, want):
        g = g.get() if hasattr(g, "get") else g
        assert np.array_equal(g, w) and g.dtype == w.dtype
    assert not npcompile.report()["graph_breaks"]
    # NumPy's own errors: the legacy choice takes 1-d arrays only, permutation no 0-d
    np.random.seed(3)
    with pytest.raises(ValueError):
        npcompile.jit(lambda v: np.random.choice(v * 1.0, 2), device=DEVICE)(x)
    with pytest.raises((ValueError, IndexError, TypeError)):
        npcompile.jit(lambda v: np.random.default_rng(0).permutation(v.sum()), device=DEVICE)(x)


def minibatches(X, seed, epochs):
    rng = np.random.default_rng(seed)
    idx = np.arange(len(X))
    total = np.zeros(X.shape[1])
    for _ in range(epochs):
        rng.shuffle(idx)            # a traced index array, shuffled in place
        total += X[idx[:4]].sum(axis=0)
    Y = X * 2.0
    rng.shuffle(Y)                  # rows of a traced 2-d array
    return total, Y


def legacy_minibatch(X):
    idx = np.arange(len(X))
    np.random.shuffle(idx)
    return X[idx] + 1.0


@pytest.mark.parametrize("seed", [2, 9])
def test_shuffle_of_traced_arrays_is_numpys(seed):
    """shuffle() of an array the trace made: NumPy's own shuffle took it for a generic
    sequence and swapped rows through views (duplicates: a wrong result). Now the same
    swaps as NumPy's, drawn from the same stream, with no graph break."""
    X = np.random.default_rng(1).standard_normal((12, 3))
    npcompile.reset()
    check(minibatches, X, seed, LOOP_MIN + 1)
    assert not npcompile.report()["graph_breaks"]
    np.random.seed(seed)
    want = legacy_minibatch(X)
    np.random.seed(seed)
    got = npcompile.jit(legacy_minibatch, device=DEVICE)(X)
    got = got.get() if hasattr(got, "get") else got
    assert np.array_equal(got, want)


def test_a_draw_needs_no_copy_of_its_values(monkeypatch):
    """A sample the trace draws reaches the user only as a lazy array: plain NumPy
    cannot write it before the graph runs, so it is not copied and compared as a
    user's ndarray is (that cost a Monte Carlo loop 3 ms per 800 KB batch)."""
    from npcompile.trace import tracer as tracer_module
    compared = []
    real = tracer_module._same_bytes
    monkeypatch.setattr(tracer_module, "_same_bytes", lambda a, b: compared.append(1) or real(a, b))

    def batches(seed, n):
        rng = np.random.default_rng(seed)
        total = 0.0
        for _ in range(3):
            xy = rng.random((n, 2))
            total = total + ((xy ** 2).sum(axis=1) <= 1.0).mean()
        return total

    check(batches, 3, 1000)
    assert compared == []


def lattice_walk(seed, n, steps):
    rng = np.random.default_rng(seed)
    pos = np.zeros(n, np.int64)
    for _ in range(steps):          # a body compiled once that draws
        pos += rng.integers(-1, 2, n)
    return pos, int(np.abs(pos).max())


def test_a_generator_made_in_the_call_is_a_step_and_the_call_replays():
    """default_rng(seed) in the call is a step of its plan (trace/random_rules._as_step):
    a replay makes a new generator, and the loop step draws its stream again, so the
    call replays with NumPy's exact values (integers: every draw shows). A generator made
    from a seed outside the loop was "a random generator as an argument" of the loop
    step, and the call traced at every call."""
    from npcompile.records import SESSION
    if DEVICE != "cpu" or os.environ.get("NPC_BACKEND") == "reference":
        pytest.skip("plans of steps are the compiled CPU backend's")
    j = npcompile.jit(lattice_walk, choose=False)
    replayed = []
    for seed in (7, 7, 7, 8, 8):
        got, want = j(seed, 32, LOOP_MIN + 4), lattice_walk(seed, 32, LOOP_MIN + 4)
        np.testing.assert_array_equal(got[0], want[0])
        assert got[1] == want[1] and type(got[1]) is int
        replayed.append(bool(SESSION.traces[-1].get("replay")))
    assert replayed == [False, True, True, False, True], (replayed, j.replay_refusals)


def lattice_walk_given(rng, n, steps):
    pos = np.zeros(n, np.int64)
    for _ in range(steps):
        pos += rng.integers(-1, 2, n)
    return pos


def test_a_generator_handed_in_moves_on_across_calls():
    """A generator handed in is no step (a replay that stopped would have moved its
    state): each call draws on from where the last one left it, as NumPy does."""
    j = npcompile.jit(lattice_walk_given, device=DEVICE, choose=False)
    mine, theirs = np.random.default_rng(5), np.random.default_rng(5)
    for _ in range(4):
        got = j(mine, 16, LOOP_MIN + 2)
        got = got.get() if hasattr(got, "get") else got
        np.testing.assert_array_equal(got, lattice_walk_given(theirs, 16, LOOP_MIN + 2))


def walk_then_branch(seed, limit, n, steps):
    rng = np.random.default_rng(seed)
    pos = np.zeros(n, np.int64)
    for _ in range(steps):
        pos += rng.integers(-1, 2, n)
    if np.abs(pos).max() > limit[0]:    # a read after the draws: may come out otherwise
        return pos * 2
    return pos - 1


def test_a_replay_that_stops_after_its_draws_traces_from_a_fresh_generator():
    """A replay whose check fails after the loop drew (the other branch) is traced as
    written: its default_rng(seed) makes the stream anew, so the values are NumPy's."""
    from npcompile.records import SESSION
    j = npcompile.jit(walk_then_branch, device=DEVICE, choose=False)
    replayed = []
    for lim in (0, 0, 1000, 1000, 0):
        limit = np.array([lim])
        got = j(7, limit, 32, LOOP_MIN + 4)
        got = got.get() if hasattr(got, "get") else got
        np.testing.assert_array_equal(got, walk_then_branch(7, limit, 32, LOOP_MIN + 4))
        replayed.append(bool(SESSION.traces[-1].get("replay")))
    if DEVICE == "cpu" and os.environ.get("NPC_BACKEND") != "reference":
        assert replayed[1] and not replayed[2], replayed


def draws_around_a_break(seed, n):
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 100, n)
    kept = x[x > 50]                 # a break: the compaction's size is the data's
    y = rng.integers(0, 10, n) * 2
    return kept + y[:3].sum(), int(kept.sum() + y.sum())


def test_draws_around_a_break_are_steps_and_the_call_replays():
    """Draws from a generator the call made are steps of its plan, in the order the call
    drew them between its graphs and breaks: a replay draws NumPy's exact stream. (A
    draw whose size is the compaction's, still traced, is no step: such calls trace.)"""
    from npcompile.records import SESSION
    if DEVICE != "cpu" or os.environ.get("NPC_BACKEND") == "reference":
        pytest.skip("plans of steps are the compiled CPU backend's")
    j = npcompile.jit(draws_around_a_break, choose=False)
    replayed = []
    for seed in (3, 3, 3, 4, 4):
        got, want = j(seed, 64), draws_around_a_break(seed, 64)
        np.testing.assert_array_equal(got[0], want[0])
        assert got[1] == want[1]
        replayed.append(bool(SESSION.traces[-1].get("replay")))
    assert replayed == [False, True, True, False, True], (replayed, j.replay_refusals)


def draws_around_a_break_given(rng, n):
    x = rng.integers(0, 100, n)
    kept = x[x > 50]
    return rng.integers(0, 10, kept.size) + kept


def test_draws_around_a_break_from_a_generator_handed_in_are_numpys():
    j = npcompile.jit(draws_around_a_break_given, device=DEVICE, choose=False)
    mine, theirs = np.random.default_rng(9), np.random.default_rng(9)
    for _ in range(4):
        got = j(mine, 64)
        got = got.get() if hasattr(got, "get") else got
        np.testing.assert_array_equal(got, draws_around_a_break_given(theirs, 64))
