"""Brownian walkers in a box [0, L] with reflecting walls: Gaussian steps each tick, and
the walkers that left the box are mirrored back in only when there are any (an `if
np.any(...)` on data inside the time loop), as simulation code often guards its fixes."""
import numpy as np

NAME = "reflecting_walkers"
LOOPS = {"ticks": 200}
N = {"small": 5000, "medium": 500_000}


def make_inputs(size, loop_scale=1):
    return N[size], 1.0, 0.02, LOOPS["ticks"] * loop_scale, 5


def run(n, L, sigma, ticks, seed):
    rng = np.random.default_rng(seed)
    x = rng.uniform(0.0, L, n)
    for _ in range(ticks):
        x = x + sigma * rng.standard_normal(n)
        out = (x < 0.0) | (x > L)
        if np.any(out):
            x = np.where(x < 0.0, -x, x)
            x = np.where(x > L, 2.0 * L - x, x)
        spread = x.std()
    return x, spread
