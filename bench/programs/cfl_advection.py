"""Upwind advection with a CFL-limited time step, dt = min(cfl * dx / max|u|, T - t),
until the end time: the step is a NumPy scalar chosen per iteration."""
import numpy as np

NAME = "cfl_advection"
LOOPS = {"t_end": 0.01}
N = {"small": 4096, "medium": 200_000}


def make_inputs(size, loop_scale=1):
    n = N[size]
    u = np.random.default_rng(0).standard_normal(n) + 3.0
    return u, 1.0 / n, 0.5, LOOPS["t_end"] * loop_scale * 4096 / n


def run(u, dx, cfl, T):
    t = 0.0
    while t < T:
        dt = min(cfl * dx / np.max(np.abs(u)), T - t)
        u = u - dt / dx * (u - np.roll(u, 1))
        t += dt
    return u, t
