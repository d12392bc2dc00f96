"""Sigma-clipped statistics of a noisy signal, as astronomers estimate a background: keep
the samples within 3 standard deviations of the mean, a few rounds, then the mean and
spread of what is left and the clipped samples themselves (x[mask] returned)."""
import numpy as np

NAME = "sigma_clip_stats"
LOOPS = {"rounds": 3}
N = {"small": 100_000, "medium": 4_000_000}


def make_inputs(size, loop_scale=1):
    rng = np.random.default_rng(7)
    x = rng.standard_normal(N[size])
    x[rng.integers(0, N[size], N[size] // 50)] += rng.uniform(5, 50, N[size] // 50)
    return x, LOOPS["rounds"] * loop_scale


def run(x, rounds):
    keep = np.ones(x.shape, dtype=bool)
    for _ in range(rounds):
        sel = x[keep]
        mu, sd = sel.mean(), sel.std()
        keep = np.abs(x - mu) < 3 * sd
    kept = x[keep]
    return kept.mean(), kept.std(), x[~keep] - mu
