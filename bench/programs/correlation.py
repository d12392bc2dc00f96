"""Standardize the columns of a data matrix (z = (x - mean) / std) and form the Pearson
correlation matrix Z^T Z / n; also the column pair with the largest |correlation|."""
import numpy as np

NAME = "correlation"
LOOPS = {}
SHAPE = {"small": (2000, 30), "medium": (200_000, 50)}


def make_inputs(size, loop_scale=1):
    rng = np.random.default_rng(0)
    n, d = SHAPE[size]
    X = rng.standard_normal((n, d))
    X[:, 1] += 0.8 * X[:, 0]
    return (X,)


def run(X):
    n = X.shape[0]
    Z = (X - X.mean(axis=0)) / X.std(axis=0)
    C = Z.T @ Z / n
    off = np.abs(C - np.diag(np.diag(C)))
    i, j = np.unravel_index(np.argmax(off), off.shape)
    return C, i, j
