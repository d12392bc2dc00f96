"""Single-spin-flip Metropolis for the 2-D Ising model, written the textbook way: pick a
random site, compute the local field from its four periodic neighbours with modular
indices, accept with probability exp(-dE/T) looked up from a small table. Random sites
and uniforms come from default_rng in one draw per sweep. Returns the magnetisation
trace and the final lattice."""
import numpy as np

NAME = "ising_metropolis_scalar"
LOOPS = {"sweeps": 4}
N = {"small": 24, "medium": 128}


def make_inputs(size, loop_scale=1):
    L = N[size]
    rng = np.random.default_rng(11)
    spins = rng.choice(np.array([-1, 1], dtype=np.int8), size=(L, L))
    return (spins, 2.2, int(LOOPS["sweeps"] * loop_scale), 5)


def run(spins, T, sweeps, seed):
    rng = np.random.default_rng(seed)
    s = spins.copy()
    L = s.shape[0]
    boltz = np.exp(-np.arange(0, 9) / T)   # indexed by dE = 0, 4, 8
    mag = np.empty(sweeps)
    for sw in range(sweeps):
        ii = rng.integers(0, L, size=L * L)
        jj = rng.integers(0, L, size=L * L)
        uu = rng.random(L * L)
        for k in range(L * L):
            i = ii[k]
            j = jj[k]
            nb = s[(i + 1) % L, j] + s[(i - 1) % L, j] + s[i, (j + 1) % L] + s[i, (j - 1) % L]
            dE = 2 * s[i, j] * nb
            if dE <= 0 or uu[k] < boltz[dE]:
                s[i, j] = -s[i, j]
        mag[sw] = s.mean()
    return s, mag
