"""Power iteration for the dominant eigenpair of a symmetric positive matrix (a Wishart
matrix G G^T / n, whose top eigenvalues are close, so convergence is slow):
y = A x;  lambda = x.y;  x = y / ||y||, while the change of lambda exceeds tol."""
import numpy as np

NAME = "power_iteration"
LOOPS = {"maxiter": 30}
N = {"small": 300, "medium": 3000}


def make_inputs(size, loop_scale=1):
    n = N[size]
    rng = np.random.default_rng(0)
    G = rng.standard_normal((n, n))
    A = G @ G.T / n
    x0 = np.ones(n) / np.sqrt(n)
    return A, x0, 1e-14, LOOPS["maxiter"] * loop_scale


def run(A, x, tol, maxiter):
    lam = 0.0
    err = np.inf
    k = 0
    while err > tol and k < maxiter:
        y = A @ x
        lam_new = x @ y
        x = y / np.linalg.norm(y)
        err = abs(lam_new - lam) / abs(lam_new)
        lam = lam_new
        k += 1
    return lam, x
