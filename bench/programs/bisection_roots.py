"""Vectorized bisection for the roots of many cubics c0 + c1 x + x^3 at once, on a fixed
number of halvings, stopping early when every bracket is narrower than tol (a `for` loop
with an `if ...: break` on data, as numerical-methods course code writes it)."""
import numpy as np

NAME = "bisection_roots"
LOOPS = {"maxiter": 60}
N = {"small": 20_000, "medium": 2_000_000}


def make_inputs(size, loop_scale=1):
    rng = np.random.default_rng(4)
    c = rng.uniform(-1.0, 1.0, (2, N[size]))
    return c[0], c[1], 1e-12, LOOPS["maxiter"] * loop_scale


def run(c0, c1, tol, maxiter):
    lo = np.full(c0.shape, -3.0)
    hi = np.full(c0.shape, 3.0)
    for it in range(maxiter):
        mid = 0.5 * (lo + hi)
        f_mid = c0 + c1 * mid + mid ** 3
        f_lo = c0 + c1 * lo + lo ** 3
        left = np.sign(f_mid) == np.sign(f_lo)
        lo = np.where(left, mid, lo)
        hi = np.where(left, hi, mid)
        if np.max(hi - lo) < tol:
            break
    return 0.5 * (lo + hi), it
