"""Logistic regression by mini-batch stochastic gradient descent: a fresh permutation per
epoch, batches by fancy indexing, gradient X^T (sigmoid(X w + b) - y) / batch."""
import numpy as np

from program_inputs import blobs

NAME = "minibatch_logreg"
LOOPS = {"epochs": 4}
N = {"small": 2000, "medium": 24_000}


def make_inputs(size, loop_scale=1):
    X, y = blobs(N[size], 10, 2, 31)
    return X, y.astype(float), LOOPS["epochs"] * loop_scale, 64, 0.1, 0


def run(X, y, epochs, bs, lr, seed):
    rng = np.random.default_rng(seed)
    n, d = X.shape
    w = np.zeros(d)
    b = 0.0
    for ep in range(epochs):
        perm = rng.permutation(n)
        for s in range(0, n, bs):
            idx = perm[s:s + bs]
            Xb, yb = X[idx], y[idx]
            p = 1 / (1 + np.exp(-(Xb @ w + b)))
            g = p - yb
            w -= lr * (Xb.T @ g) / len(idx)
            b -= lr * g.mean()
    return w, b
