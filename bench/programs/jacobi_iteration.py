"""Jacobi iteration for a diagonally dominant system A x = b: x <- (b - R x) / D with
R = A - diag(D), until the largest update is below tol (a data-dependent while loop)."""
import numpy as np

NAME = "jacobi_iteration"
LOOPS = {"maxiter": 200}
N = {"small": 200, "medium": 3000}


def make_inputs(size, loop_scale=1):
    n = N[size]
    rng = np.random.default_rng(0)
    A = rng.random((n, n)) + 2.0 * n * np.eye(n)
    return A, rng.random(n), 1e-12, LOOPS["maxiter"] * loop_scale


def run(A, b, tol, maxiter):
    D = np.diag(A)
    R = A - np.diagflat(D)
    x = np.zeros_like(b)
    for it in range(maxiter):
        x_new = (b - R @ x) / D
        if np.max(np.abs(x_new - x)) < tol:
            return x_new, it
        x = x_new
    return x, maxiter
