"""Softened N-body gravity, a_i = G sum_j m_j d_ij / (|d_ij|^2 + eps^2)^(3/2), with the sum
written as an einsum over the pair-difference tensor, and semi-implicit Euler steps."""
import numpy as np

NAME = "gravity_einsum"
LOOPS = {"nsteps": 25}
N = {"small": 120, "medium": 400}


def make_inputs(size, loop_scale=1):
    n = N[size]
    pos = np.random.default_rng(5).standard_normal((n, 3))
    mass = np.random.default_rng(6).uniform(0.5, 1.5, n)
    return pos, np.zeros((n, 3)), mass, 0.001, LOOPS["nsteps"] * loop_scale


def run(pos, vel, mass, dt, nsteps):
    G, soft = 1.0, 0.1
    for _ in range(nsteps):
        d = pos[None, :, :] - pos[:, None, :]
        dist = np.linalg.norm(d, axis=2)
        inv3 = (dist**2 + soft**2)**-1.5
        acc = G * np.einsum('ijk,ij,j->ik', d, inv3, mass)
        vel += acc * dt
        pos += vel * dt
    return pos, vel
