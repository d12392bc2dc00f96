"""Lloyd's k-means until the assignments stop changing: distances by broadcasting,
argmin labels, centroid update per cluster with boolean masks."""
import numpy as np
NAME = "kmeans_lloyd"
LOOPS = {}
N = {"small": 3000, "medium": 200000}
def make_inputs(size, loop_scale=1):
    rng = np.random.default_rng(8)
    c = rng.normal(0, 4, (5, 2))
    X = c[rng.integers(0, 5, N[size])] + rng.normal(0, 1, (N[size], 2))
    return X, 5
def run(X, k):
    C = X[:k].copy()
    labels = np.zeros(len(X), dtype=int)
    for it in range(100):
        d = ((X[:, None, :] - C[None, :, :]) ** 2).sum(axis=2)
        new = d.argmin(axis=1)
        if it > 0 and np.array_equal(new, labels):
            break
        labels = new
        for j in range(k):
            m = labels == j
            if m.any():
                C[j] = X[m].mean(axis=0)
    return C, labels, it
