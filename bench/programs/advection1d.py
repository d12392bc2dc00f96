"""Linear advection u_t + a u_x = 0 on a periodic domain, Lax-Wendroff scheme (C = a dt/dx):
u_i <- u_i - C/2 (u_{i+1} - u_{i-1}) + C^2/2 (u_{i+1} - 2 u_i + u_{i-1}), neighbours via np.roll."""
import numpy as np

NAME = "advection1d"
LOOPS = {"steps": 100}
N = {"small": 50_000, "medium": 4_000_000}


def make_inputs(size, loop_scale=1):
    x = np.linspace(0.0, 1.0, N[size], endpoint=False)
    u = np.where((x > 0.2) & (x < 0.4), 1.0, 0.0) + np.sin(2 * np.pi * x)
    return u, 0.8, LOOPS["steps"] * loop_scale


def run(u, C, steps):
    for _ in range(steps):
        up = np.roll(u, -1)   # u_{i+1}
        um = np.roll(u, 1)    # u_{i-1}
        u = u - 0.5 * C * (up - um) + 0.5 * C ** 2 * (up - 2 * u + um)
    return u
