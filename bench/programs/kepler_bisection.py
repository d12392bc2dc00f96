"""Kepler's equation M = E - e sin E solved for the eccentric anomaly E of many mean
anomalies at once by bisection on [0, 2 pi], np.where keeping the half that brackets the
root (orbital-mechanics textbook exercise)."""
import numpy as np

NAME = "kepler_bisection"
LOOPS = {"iters": 50}
N = {"small": 20_000, "medium": 300_000}


def make_inputs(size, loop_scale=1):
    M = np.random.default_rng(15).uniform(0, 2 * np.pi, N[size])
    return M, 0.6, LOOPS["iters"] * loop_scale


def run(M, e, iters):
    lo = np.zeros_like(M)
    hi = np.full_like(M, 2 * np.pi)
    for _ in range(iters):
        mid = 0.5 * (lo + hi)
        f = mid - e * np.sin(mid) - M
        pos = f > 0
        hi = np.where(pos, mid, hi)
        lo = np.where(pos, lo, mid)
    return 0.5 * (lo + hi)
