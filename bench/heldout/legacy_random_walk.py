"""Ensemble of 1-D random walkers with legacy np.random (seeded inside), tracking the
mean square displacement per step and the first-passage count past a barrier."""
import numpy as np
NAME = "legacy_random_walk"
LOOPS = {"steps": 100}
N = {"small": 5000, "medium": 500000}
def make_inputs(size, loop_scale=1):
    return N[size], LOOPS["steps"] * loop_scale
def run(walkers, steps):
    np.random.seed(1)
    x = np.zeros(walkers)
    passed = np.zeros(walkers, dtype=bool)
    msd = []
    for s in range(steps):
        x += np.random.randn(walkers)
        passed |= x > 10.0
        msd.append(np.mean(x ** 2))
    return np.array(msd), passed.sum()
