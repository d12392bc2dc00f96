"""2-D wave equation u_tt = c^2 lap(u), leapfrog in time:
u^{n+1} = 2 u^n - u^{n-1} + C^2 (5-point Laplacian of u^n),  C = c dt/h <= 1/sqrt(2).
Three buffers rotated each step; fixed (u = 0) edges."""
import numpy as np

NAME = "wave2d"
LOOPS = {"steps": 50}
N = {"small": 256, "medium": 2048}


def make_inputs(size, loop_scale=1):
    n = N[size]
    x = np.linspace(-1.0, 1.0, n)
    u0 = np.exp(-50.0 * (x[:, None] ** 2 + x[None, :] ** 2))  # a drop in the middle
    return u0, 0.5, LOOPS["steps"] * loop_scale


def run(u0, C, steps):
    C2 = C * C
    u_prev = u0.copy()
    u = u0.copy()
    u_next = np.zeros_like(u0)
    for _ in range(steps):
        u_next[1:-1, 1:-1] = (2 * u[1:-1, 1:-1] - u_prev[1:-1, 1:-1]
                              + C2 * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2]
                                      - 4 * u[1:-1, 1:-1]))
        u_prev, u, u_next = u, u_next, u_prev
    return u
