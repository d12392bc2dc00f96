"""Nonparametric bootstrap for the mean and the 10% trimmed mean of a skewed
sample: for each replicate draw n indices with rng.integers (generator seeded
inside run), compute statistics of x[idx], and form percentile confidence
intervals with np.percentile; also the bootstrap bias and standard error."""
import numpy as np

NAME = "bootstrap_ci"
LOOPS = {"reps": 200}
N = {"small": 500, "medium": 200_000}


def make_inputs(size, loop_scale=1):
    n = N[size]
    rng = np.random.default_rng(0)
    x = rng.lognormal(mean=0.0, sigma=0.8, size=n)
    reps = int(LOOPS["reps"] * loop_scale)
    return (x, reps, 123)


def trimmed_mean(a, frac):
    s = np.sort(a)
    k = int(frac * len(s))
    return s[k:len(s) - k].mean()


def run(x, reps, seed):
    rng = np.random.default_rng(seed)
    n = len(x)
    means = np.empty(reps)
    tmeans = np.empty(reps)
    for b in range(reps):
        idx = rng.integers(0, n, size=n)
        xb = x[idx]
        means[b] = xb.mean()
        tmeans[b] = trimmed_mean(xb, 0.1)
    ci_mean = np.percentile(means, [2.5, 97.5])
    ci_tmean = np.percentile(tmeans, [2.5, 97.5])
    bias = means.mean() - x.mean()
    se = means.std(ddof=1)
    return ci_mean, ci_tmean, bias, se
