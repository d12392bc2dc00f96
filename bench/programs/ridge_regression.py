"""Ridge regression along a path of penalties: w(lambda) = (X^T X + lambda I)^{-1} X^T y by
np.linalg.solve, with the training error of each; the normal equations formed once."""
import numpy as np

NAME = "ridge_regression"
LOOPS = {"n_lambdas": 20}
SHAPE = {"small": (2000, 50), "medium": (100_000, 200)}


def make_inputs(size, loop_scale=1):
    n, d = SHAPE[size]
    rng = np.random.default_rng(0)
    X = rng.standard_normal((n, d))
    y = X @ rng.standard_normal(d) + rng.standard_normal(n)
    return X, y, np.logspace(-3, 3, LOOPS["n_lambdas"] * loop_scale)


def run(X, y, lambdas):
    d = X.shape[1]
    G = X.T @ X
    Xty = X.T @ y
    W = np.empty((len(lambdas), d))
    mse = np.empty(len(lambdas))
    for i, lam in enumerate(lambdas):
        W[i] = np.linalg.solve(G + lam * np.eye(d), Xty)
        mse[i] = np.mean((X @ W[i] - y) ** 2)
    return W, mse
