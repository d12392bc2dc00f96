"""Gravitational n-body, softened, symplectic Euler steps (G = 1):
a_i = sum_j m_j (r_j - r_i) / (|r_j - r_i|^2 + eps^2)^(3/2);  v += dt a;  r += dt v.
All pairs by broadcasting to an (n, n, 3) array."""
import numpy as np

NAME = "nbody"
LOOPS = {"steps": 20}
N = {"small": 100, "medium": 1000}


def make_inputs(size, loop_scale=1):
    n = N[size]
    rng = np.random.default_rng(0)
    pos = rng.standard_normal((n, 3))
    vel = 0.1 * rng.standard_normal((n, 3))
    mass = rng.uniform(0.5, 1.5, n) / n
    return pos, vel, mass, 1e-3, 0.05, LOOPS["steps"] * loop_scale


def run(pos, vel, mass, dt, eps, steps):
    for _ in range(steps):
        d = pos[None, :, :] - pos[:, None, :]           # d[i, j] = r_j - r_i
        r2 = (d ** 2).sum(axis=2) + eps ** 2
        inv_r3 = r2 ** -1.5
        acc = (d * (mass[None, :] * inv_r3)[:, :, None]).sum(axis=1)
        vel += dt * acc
        pos += dt * vel
    return pos, vel
