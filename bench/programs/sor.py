"""Successive over-relaxation (red-black ordering) for -lap(u) = 1 on the unit square:
u <- u + omega (u_GS - u), repeated while the largest change exceeds tol (or maxiter is hit).
omega = 2 / (1 + sin(pi h)) is the optimal factor for this model problem."""
import numpy as np

NAME = "sor"
LOOPS = {"maxiter": 25}
N = {"small": 200, "medium": 2000}


def make_inputs(size, loop_scale=1):
    n = N[size]
    h = 1.0 / (n - 1)
    omega = 2.0 / (1.0 + np.sin(np.pi * h))
    return np.zeros((n, n)), h, omega, 1e-10, LOOPS["maxiter"] * loop_scale


def run(u, h, omega, tol, maxiter):
    n = u.shape[0]
    diff = np.inf
    it = 0
    while diff > tol and it < maxiter:
        old = u.copy()
        for (i, j) in ((1, 1), (2, 2), (1, 2), (2, 1)):
            gs = 0.25 * (u[i - 1:n - 2:2, j:n - 1:2] + u[i + 1:n:2, j:n - 1:2]
                         + u[i:n - 1:2, j - 1:n - 2:2] + u[i:n - 1:2, j + 1:n:2] + h * h)
            u[i:n - 1:2, j:n - 1:2] += omega * (gs - u[i:n - 1:2, j:n - 1:2])
        diff = np.max(np.abs(u - old))
        it += 1
    return u
