"""1-D heat equation u_t = alpha u_xx, explicit FTCS scheme:
u_i <- u_i + r (u_{i+1} - 2 u_i + u_{i-1}),  r = alpha dt / dx^2 <= 1/2 for stability.
Dirichlet ends (u[0], u[-1] never change)."""
import numpy as np

NAME = "heat1d"
LOOPS = {"steps": 100}
N = {"small": 50_000, "medium": 4_000_000}


def make_inputs(size, loop_scale=1):
    x = np.linspace(0.0, 1.0, N[size])
    u = np.exp(-200.0 * (x - 0.5) ** 2)  # a Gaussian bump of heat
    return u, 0.4, LOOPS["steps"] * loop_scale


def run(u, r, steps):
    for t in range(steps):
        u[1:-1] = u[1:-1] + r * (u[2:] - 2 * u[1:-1] + u[:-2])
    return u
