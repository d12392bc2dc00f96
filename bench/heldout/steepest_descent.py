"""Steepest descent for a symmetric positive definite system A x = b:
r = b - A x, alpha = (r.r)/(r.A r), x += alpha r, until ||r||/||b|| < tol.
A is a diagonally dominant random SPD matrix so the iteration converges quickly."""
import numpy as np

NAME = "steepest_descent"
LOOPS = {"max_iter": 200}
N = {"small": 200, "medium": 3_000}


def make_inputs(size, loop_scale=1):
    n = N[size]
    rng = np.random.default_rng(0)
    M = rng.standard_normal((n, n)) / np.sqrt(n)
    A = M @ M.T + 2.0 * np.eye(n)
    b = rng.standard_normal(n)
    max_iter = int(LOOPS["max_iter"] * loop_scale)
    return (A, b, 1e-8, max_iter)


def run(A, b, tol, max_iter):
    x = np.zeros_like(b)
    r = b - A @ x
    bnorm = np.linalg.norm(b)
    history = []
    k = 0
    while np.linalg.norm(r) / bnorm > tol and k < max_iter:
        Ar = A @ r
        alpha = np.dot(r, r) / np.dot(r, Ar)
        x += alpha * r
        r -= alpha * Ar
        history.append(np.linalg.norm(r))
        k += 1
    return x, np.array(history), k
