"""Log returns of a price panel where both prices are positive (missing quotes are 0),
with the mean and volatility of the valid returns: x[mask] feeding arithmetic and
reductions, the valid returns handed back compacted."""
import numpy as np

NAME = "positive_log_returns"
LOOPS = {}
N = {"small": 300, "medium": 3000}


def make_inputs(size, loop_scale=1):
    rng = np.random.default_rng(11)
    n = N[size]
    p = 100 * np.exp(np.cumsum(rng.normal(0, 0.01, (n, 250)), axis=1))
    p[rng.random((n, 250)) < 0.05] = 0.0
    return (p,)


def run(prices):
    a, b = prices[:, :-1], prices[:, 1:]
    ok = (a > 0) & (b > 0)
    r = np.log(b[ok]) - np.log(a[ok])
    return r.mean(), r.std() * np.sqrt(252), r
