"""Jacobi iteration for Laplace's equation on a square, u = 1 on the top edge, 0 elsewhere:
u_ij <- (u_{i+1,j} + u_{i-1,j} + u_{i,j+1} + u_{i,j-1}) / 4, from the previous sweep's values.
Returns the field and the last sweep's max change."""
import numpy as np

NAME = "jacobi2d"
LOOPS = {"sweeps": 50}
N = {"small": 200, "medium": 2000}


def make_inputs(size, loop_scale=1):
    n = N[size]
    u = np.zeros((n, n))
    u[0, :] = 1.0
    return u, LOOPS["sweeps"] * loop_scale


def run(u, sweeps):
    for it in range(sweeps):
        un = u.copy()
        u[1:-1, 1:-1] = 0.25 * (un[2:, 1:-1] + un[:-2, 1:-1] + un[1:-1, 2:] + un[1:-1, :-2])
        delta = np.abs(u - un).max()
    return u, delta
