"""2-D diffusion u_t = D (u_xx + u_yy), explicit 5-point stencil:
u_ij <- u_ij + r (u_{i+1,j} + u_{i-1,j} + u_{i,j+1} + u_{i,j-1} - 4 u_ij),  r = D dt/h^2 <= 1/4.
A hot square in a cold plate, edges held at 0."""
import numpy as np

NAME = "heat2d"
LOOPS = {"steps": 50}
N = {"small": 256, "medium": 2048}


def make_inputs(size, loop_scale=1):
    n = N[size]
    u = np.zeros((n, n))
    u[n // 4: 3 * n // 4, n // 4: 3 * n // 4] = 100.0
    return u, 0.2, LOOPS["steps"] * loop_scale


def run(u, r, steps):
    for _ in range(steps):
        lap = u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4.0 * u[1:-1, 1:-1]
        u[1:-1, 1:-1] += r * lap
    return u
