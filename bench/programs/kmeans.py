"""Lloyd's k-means: assign each point to its nearest centre (squared distances by
broadcasting, argmin), then move each centre to the mean of its points."""
import numpy as np

NAME = "kmeans"
LOOPS = {"iters": 10}
N = {"small": 5000, "medium": 500_000}


def make_inputs(size, loop_scale=1):
    rng = np.random.default_rng(0)
    k, d = 8, 4
    true = rng.uniform(-10, 10, (k, d))
    X = true[rng.integers(0, k, N[size])] + rng.standard_normal((N[size], d))
    centers = X[:k].copy()
    return X, centers, LOOPS["iters"] * loop_scale


def run(X, centers, iters):
    k = centers.shape[0]
    for _ in range(iters):
        d2 = ((X[:, None, :] - centers[None, :, :]) ** 2).sum(axis=2)
        labels = np.argmin(d2, axis=1)
        for j in range(k):
            members = X[labels == j]
            if len(members) > 0:
                centers[j] = members.mean(axis=0)
    return centers, labels
