"""A running-median despiking filter: each sample replaced by the median of a window
around it, the window clipped at the ends with builtin max/min on the indices, in a
Python loop over the samples (as signal-processing scripts do before reaching for scipy)."""
import numpy as np

NAME = "rolling_median_filter"
LOOPS = {}
N = {"small": 400, "medium": 20000}


def make_inputs(size, loop_scale=1):
    rng = np.random.default_rng(0)
    x = np.sin(np.linspace(0, 20, N[size])) + 0.1 * rng.standard_normal(N[size])
    x[rng.integers(0, N[size], N[size] // 50)] += 5.0     # spikes
    return x, 3


def run(x, k):
    out = np.empty_like(x)
    for i in range(x.size):
        lo = max(0, i - k)
        hi = min(x.size, i + k + 1)
        out[i] = np.median(x[lo:hi])
    return out
