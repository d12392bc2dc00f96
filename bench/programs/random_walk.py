"""2-D random walks with unit steps in uniformly random directions; the mean squared
displacement <|r_t|^2> grows like t. Returns the MSD after every step."""
import numpy as np

NAME = "random_walk"
LOOPS = {"steps": 50}
N = {"small": 10_000, "medium": 2_000_000}


def make_inputs(size, loop_scale=1):
    return 7, N[size], LOOPS["steps"] * loop_scale


def run(seed, walkers, steps):
    rng = np.random.default_rng(seed)
    pos = np.zeros((walkers, 2))
    msd = np.empty(steps)
    for t in range(steps):
        angle = rng.uniform(0.0, 2 * np.pi, walkers)
        pos[:, 0] += np.cos(angle)
        pos[:, 1] += np.sin(angle)
        msd[t] = np.mean(np.sum(pos ** 2, axis=1))
    return msd
