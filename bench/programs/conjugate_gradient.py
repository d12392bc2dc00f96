"""Conjugate gradient for A x = b, A symmetric positive definite (here the dense 1-D
Laplacian tridiag(-1, 2, -1), whose condition number ~ n^2 keeps CG from converging early):
alpha = r.r / p.Ap;  x += alpha p;  r -= alpha Ap;  p = r + (r'.r' / r.r) p,
while ||r|| > tol and k < maxiter."""
import numpy as np

NAME = "conjugate_gradient"
LOOPS = {"maxiter": 30}
N = {"small": 300, "medium": 3000}


def make_inputs(size, loop_scale=1):
    n = N[size]
    A = 2.0 * np.eye(n) - np.eye(n, k=1) - np.eye(n, k=-1)
    b = np.random.default_rng(0).standard_normal(n)
    return A, b, 1e-10, LOOPS["maxiter"] * loop_scale


def run(A, b, tol, maxiter):
    x = np.zeros_like(b)
    r = b - A @ x
    p = r.copy()
    rs = r @ r
    k = 0
    while np.sqrt(rs) > tol and k < maxiter:
        Ap = A @ p
        alpha = rs / (p @ Ap)
        x += alpha * p
        r -= alpha * Ap
        rs_new = r @ r
        p = r + (rs_new / rs) * p
        rs = rs_new
        k += 1
    return x
