"""Newton's (Heron's) iteration for square roots, elementwise: x <- (x + a/x) / 2,
until the largest relative residual |x^2 - a| / a is below tol."""
import numpy as np

NAME = "newton_sqrt"
LOOPS = {}
N = {"small": 100_000, "medium": 8_000_000}


def make_inputs(size, loop_scale=1):
    a = 10.0 ** np.random.default_rng(0).uniform(-3, 3, N[size])
    return a, 1e-13


def run(a, tol):
    x = np.where(a > 1.0, a, 1.0)   # a starting guess above the root
    err = np.inf
    while err > tol:
        x = 0.5 * (x + a / x)
        err = np.max(np.abs(x * x - a) / a)
    return x
