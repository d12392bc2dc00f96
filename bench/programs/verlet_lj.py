"""Lennard-Jones molecular dynamics in a periodic box with velocity Verlet (half kick,
drift, new forces, half kick), all-pairs forces with the minimum-image convention,
F = 24 (2/r^14 - 1/r^8) d in reduced units (Allen & Tildesley; Frenkel & Smit). Atoms start
on a jittered cubic lattice of N[size]^3 sites spaced 1.5."""
import numpy as np

NAME = "verlet_lj"
LOOPS = {"nsteps": 40}
N = {"small": 4, "medium": 6}


def lj_forces(pos, L):
    d = pos[:, None, :] - pos[None, :, :]
    d -= L * np.round(d / L)            # minimum image
    r2 = np.sum(d**2, axis=-1)
    np.fill_diagonal(r2, np.inf)
    inv6 = (1.0 / r2)**3
    fmag = 24 * (2 * inv6**2 - inv6) / r2
    return np.sum(fmag[:, :, None] * d, axis=1)


def make_inputs(size, loop_scale=1):
    k = N[size]
    g = np.arange(k) * 1.5 + 0.75
    pos0 = np.array(np.meshgrid(g, g, g)).reshape(3, -1).T.copy()
    pos = pos0 + 0.05 * np.random.default_rng(4).standard_normal(pos0.shape)
    return pos, np.zeros_like(pos0), 1.5 * k, 0.002, LOOPS["nsteps"] * loop_scale


def run(pos, vel, L, dt, nsteps):
    f = lj_forces(pos, L)
    for _ in range(nsteps):
        vel += 0.5 * dt * f
        pos += dt * vel
        pos %= L
        f = lj_forces(pos, L)
        vel += 0.5 * dt * f
    ke = 0.5 * np.sum(vel**2)
    return pos, vel, ke
