"""Iterative sigma clipping as astropy's sigma_clip does it by hand: drop non-finite
samples, then a few rounds of keeping the samples within 3 standard deviations of the
median-free mean of what is left (each round selects from the last round's selection),
and report the clipped mean, spread and count."""
import numpy as np

NAME = "sigma_clip_iterative"
LOOPS = {"rounds": 5}
N = {"small": 50_000, "medium": 4_000_000}


def make_inputs(size, loop_scale=1):
    rng = np.random.default_rng(11)
    x = rng.normal(10.0, 2.0, N[size])
    x[rng.integers(0, N[size], N[size] // 40)] += rng.uniform(10, 80, N[size] // 40)
    x[rng.integers(0, N[size], N[size] // 500)] = np.nan
    return x, LOOPS["rounds"] * loop_scale


def run(x, rounds):
    d = x[np.isfinite(x)]
    for _ in range(rounds):
        mu, sd = d.mean(), d.std()
        d = d[np.abs(d - mu) < 3.0 * sd]
    return d.mean(), d.std(), d.size
