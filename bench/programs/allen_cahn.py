"""Allen-Cahn phase separation u_t = eps^2 lap(u) + u - u^3 on a periodic grid: explicit
Euler, the 5-point Laplacian built from np.roll shifts (the usual phase-field tutorial
code), starting from small random noise."""
import numpy as np

NAME = "allen_cahn"
LOOPS = {"nsteps": 40}
N = {"small": 80, "medium": 256}


def make_inputs(size, loop_scale=1):
    n = N[size]
    u = 0.1 * np.random.default_rng(1).standard_normal((n, n))
    return u, 0.02, 0.1, LOOPS["nsteps"] * loop_scale


def run(u, eps, dt, nsteps):
    """Allen-Cahn u_t = eps^2 lap u + u - u^3, periodic via np.roll."""
    dx = 1.0 / u.shape[0]
    for _ in range(nsteps):
        lap = (np.roll(u, 1, axis=0) + np.roll(u, -1, axis=0) +
               np.roll(u, 1, axis=1) + np.roll(u, -1, axis=1) - 4 * u) / dx**2
        u = u + dt * 1e-3 * (eps**2 * lap) + dt * (u - u**3)
    return u
