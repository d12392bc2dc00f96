"""First-passage times of symmetric +/-1 random walks started at 0 with absorbing
barriers at -a and +b. All walkers step together; a boolean 'alive' mask tracks
who has not yet hit a barrier and the while loop runs until everyone is absorbed.
Compares P(hit +b) with the gambler's-ruin value a/(a+b) and the mean time with a*b."""
import numpy as np

NAME = "random_walk_hitting"
LOOPS = {"max_steps": 100_000}
N = {"small": 2_000, "medium": 500_000}


def make_inputs(size, loop_scale=1):
    nwalk = N[size]
    return (nwalk, 6, 9, int(LOOPS["max_steps"] * loop_scale), 7)


def run(nwalk, a, b, max_steps, seed):
    np.random.seed(seed)
    pos = np.zeros(nwalk, dtype=np.int32)
    alive = np.ones(nwalk, dtype=bool)
    t_hit = np.full(nwalk, -1, dtype=np.int64)
    t = 0
    while alive.any() and t < max_steps:
        t += 1
        idx = np.flatnonzero(alive)
        steps = np.where(np.random.rand(idx.size) < 0.5, -1, 1).astype(np.int32)
        pos[idx] += steps
        hit = (pos[idx] <= -a) | (pos[idx] >= b)
        t_hit[idx[hit]] = t
        alive[idx[hit]] = False
    p_up = np.mean(pos >= b)
    mean_t = t_hit[t_hit > 0].mean()
    return p_up, a / (a + b), mean_t, a * b, t_hit
