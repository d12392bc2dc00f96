"""Floyd-Warshall all-pairs shortest paths: for each intermediate vertex k,
d_ij <- min(d_ij, d_ik + d_kj), one broadcast per k."""
import numpy as np

NAME = "floyd_warshall"
LOOPS = {}
N = {"small": 150, "medium": 1000}


def make_inputs(size, loop_scale=1):
    n = N[size]
    rng = np.random.default_rng(0)
    d = rng.uniform(1.0, 10.0, (n, n))
    d[rng.random((n, n)) < 0.9] = np.inf   # a sparse random digraph
    np.fill_diagonal(d, 0.0)
    return (d,)


def run(d):
    n = d.shape[0]
    for k in range(n):
        d = np.minimum(d, d[:, k, None] + d[None, k, :])
    return d
