"""k-nearest-neighbour classification: squared distances by the |a|^2 - 2 a.b + |b|^2
expansion, the k nearest by np.argpartition, a majority vote by np.bincount per test point
(a list comprehension), on Gaussian blobs. N[size] is the number of points, 5/6 for
training. No counted loop."""
import numpy as np

from program_inputs import blobs

NAME = "knn_predict"
LOOPS = {}
N = {"small": 1200, "medium": 4800}


def make_inputs(size, loop_scale=1):
    n = N[size]
    X, y = blobs(n, 8, 3, 28)
    ntr = n * 5 // 6
    return X[:ntr], y[:ntr], X[ntr:], 7


def run(Xtr, ytr, Xte, k):
    d2 = (Xte**2).sum(1)[:, None] - 2 * Xte @ Xtr.T + (Xtr**2).sum(1)[None, :]
    idx = np.argpartition(d2, k, axis=1)[:, :k]
    votes = ytr[idx]
    pred = np.array([np.bincount(v, minlength=3).argmax() for v in votes])
    return pred
