"""Jacobi relaxation for Laplace's equation written with element loops, as numerical
methods courses first write it: u_new[i, j] = (u[i-1, j] + u[i+1, j] + u[i, j-1] + u[i, j+1]) / 4
on the interior, then the two grids swap roles."""
import numpy as np

NAME = "jacobi_loops"
LOOPS = {"iters": 20}
N = {"small": 64, "medium": 400}


def make_inputs(size, loop_scale=1):
    n = N[size]
    u = np.zeros((n, n))
    u[0, :] = 1.0                 # a hot top edge
    return u, u.copy(), LOOPS["iters"] * loop_scale


def run(u, unew, iters):
    n = u.shape[0]
    for it in range(iters):
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                unew[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])
        u, unew = unew, u
    return u
