"""Gravitational N-body with softening, integrated by kick-drift-kick leapfrog.
Accelerations a_i = G sum_j m_j (r_j - r_i) / (|r_j - r_i|^2 + eps^2)^{3/2} are
computed with broadcasting over pairs (dx = x[None,:] - x[:,None]). Tracks the total
energy each step."""
import numpy as np

NAME = "nbody_leapfrog"
LOOPS = {"steps": 20}
N = {"small": 64, "medium": 2_000}


def make_inputs(size, loop_scale=1):
    n = N[size]
    rng = np.random.default_rng(0)
    pos = rng.standard_normal((n, 3))
    vel = 0.1 * rng.standard_normal((n, 3))
    mass = rng.uniform(0.5, 1.5, n) / n
    steps = int(LOOPS["steps"] * loop_scale)
    return (pos, vel, mass, 0.01, steps)


def accel(pos, mass, G, soft):
    d = pos[None, :, :] - pos[:, None, :]          # (n, n, 3): r_j - r_i
    r2 = np.sum(d ** 2, axis=2) + soft ** 2
    inv_r3 = r2 ** -1.5
    np.fill_diagonal(inv_r3, 0.0)
    return G * np.einsum("ijk,ij,j->ik", d, inv_r3, mass)


def energy(pos, vel, mass, G, soft):
    ke = 0.5 * np.sum(mass[:, None] * vel ** 2)
    d = pos[None, :, :] - pos[:, None, :]
    r = np.sqrt(np.sum(d ** 2, axis=2) + soft ** 2)
    iu = np.triu_indices(len(mass), 1)
    pe = -G * np.sum((mass[:, None] * mass[None, :] / r)[iu])
    return ke + pe


def run(pos, vel, mass, dt, steps):
    G, soft = 1.0, 0.1
    pos = pos.copy()
    vel = vel.copy()
    a = accel(pos, mass, G, soft)
    E = np.zeros(steps + 1)
    E[0] = energy(pos, vel, mass, G, soft)
    for t in range(steps):
        vel += 0.5 * dt * a
        pos += dt * vel
        a = accel(pos, mass, G, soft)
        vel += 0.5 * dt * a
        E[t + 1] = energy(pos, vel, mass, G, soft)
    return pos, vel, E
