"""Monte Carlo estimate of pi: the fraction of uniform points of the unit square inside the
quarter disc x^2 + y^2 <= 1 tends to pi/4. Points drawn in batches from a seeded generator."""
import numpy as np

NAME = "monte_carlo_pi"
LOOPS = {"batches": 20}
N = {"small": 50_000, "medium": 4_000_000}


def make_inputs(size, loop_scale=1):
    return 12345, N[size], LOOPS["batches"] * loop_scale


def run(seed, batch, batches):
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(batches):
        xy = rng.random((batch, 2))
        hits += np.count_nonzero((xy ** 2).sum(axis=1) <= 1.0)
    return 4.0 * hits / (batch * batches)
