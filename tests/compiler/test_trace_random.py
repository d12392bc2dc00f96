"""Random numbers join the trace (trace/random_rules.py): what is computed from them
compiles, the stream is NumPy's own, and calls are never replayed (each draws anew)."""
import numpy as np
import pytest

import npcompile
from conftest import DEVICE, check
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
    for _ in range(steps):          # a body that draws: traced per iteration
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
