"""Jacobi iterations for a diagonally dominant tridiagonal system, recording the
residual's max norm at every sweep (hist.append), as a solver's convergence plot does."""
import numpy as np

NAME = "jacobi_history"
LOOPS = {"sweeps": 200}
N = {"small": 4096, "medium": 1_000_000}


def make_inputs(size, loop_scale=1):
    rng = np.random.default_rng(0)
    n = N[size]
    return np.full(n, 4.0), rng.standard_normal(n), np.zeros(n), LOOPS["sweeps"] * loop_scale


def run(d, b, x, sweeps):
    hist = []
    for _ in range(sweeps):
        r = b - d * x - 0.1 * (np.roll(x, 1) + np.roll(x, -1))
        x = x + r / d
        hist.append(np.abs(r).max())
    return x, hist
