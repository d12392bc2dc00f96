"""2-D Ising model Metropolis Monte Carlo with checkerboard updates: all spins of one colour
flip at once with probability min(1, exp(-beta dE)), dE = 2 s sum(neighbours) from
np.roll, periodic boundaries; magnetisation recorded per sweep (Newman & Barkema)."""
import numpy as np

NAME = "ising_checkerboard"
LOOPS = {"sweeps": 40}
N = {"small": 60, "medium": 260}


def make_inputs(size, loop_scale=1):
    return N[size], 0.44, LOOPS["sweeps"] * loop_scale, 0


def run(L, beta, sweeps, seed):
    rng = np.random.default_rng(seed)
    spins = rng.choice([-1, 1], size=(L, L))
    ii, jj = np.indices((L, L))
    black = (ii + jj) % 2 == 0
    mags = []
    for _ in range(sweeps):
        for mask in (black, ~black):
            nb = (np.roll(spins, 1, 0) + np.roll(spins, -1, 0) +
                  np.roll(spins, 1, 1) + np.roll(spins, -1, 1))
            dE = 2 * spins * nb
            flip = (rng.random((L, L)) < np.exp(-beta * dE)) & mask
            spins[flip] *= -1
        mags.append(spins.mean())
    return spins, np.array(mags)
