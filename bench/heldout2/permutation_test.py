"""Two-sample permutation test for a difference in means and in medians: pool the
samples, shuffle with rng.permutation each replicate, recompute the statistics, and
report two-sided p-values plus a running estimate of the p-value every 100 reps."""
import numpy as np

NAME = "permutation_test"
LOOPS = {"reps": 250}
N = {"small": 300, "medium": 100_000}


def make_inputs(size, loop_scale=1):
    n = N[size]
    rng = np.random.default_rng(77)
    a = rng.gamma(2.0, 1.0, n)
    b = rng.gamma(2.0, 1.1, n + n // 3)
    return (a, b, int(LOOPS["reps"] * loop_scale), 99)


def run(a, b, reps, seed):
    rng = np.random.default_rng(seed)
    pooled = np.concatenate([a, b])
    na = a.size
    obs_mean = a.mean() - b.mean()
    obs_med = np.median(a) - np.median(b)
    count_mean = 0
    count_med = 0
    running = []
    for r in range(reps):
        perm = rng.permutation(pooled)
        pa = perm[:na]
        pb = perm[na:]
        if abs(pa.mean() - pb.mean()) >= abs(obs_mean):
            count_mean += 1
        if abs(np.median(pa) - np.median(pb)) >= abs(obs_med):
            count_med += 1
        if (r + 1) % 100 == 0:
            running.append((count_mean + 1) / (r + 2))
    p_mean = (count_mean + 1) / (reps + 1)
    p_med = (count_med + 1) / (reps + 1)
    return obs_mean, obs_med, p_mean, p_med, np.array(running)
