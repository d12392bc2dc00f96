"""Successive over-relaxation for the 2-D Laplace equation with a while loop on the
max change, written with explicit Python loops over rows (a common course style)."""
import numpy as np
NAME = "sor_while"
LOOPS = {}
N = {"small": 40, "medium": 150}
def make_inputs(size, loop_scale=1):
    n = N[size]
    u = np.zeros((n, n)); u[0, :] = 1.0
    return u, 1.5, 1e-4
def run(u, omega, tol):
    err = 1.0
    it = 0
    while err > tol and it < 500:
        old = u.copy()
        for i in range(1, u.shape[0] - 1):
            u[i, 1:-1] = (1 - omega) * u[i, 1:-1] + omega * 0.25 * (
                u[i - 1, 1:-1] + old[i + 1, 1:-1] + u[i, :-2] + old[i, 2:])
        err = np.abs(u - old).max()
        it += 1
    return u, it
