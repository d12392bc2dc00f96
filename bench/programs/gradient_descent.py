"""Least squares by gradient descent for a fixed number of epochs:
w <- w - lr X^T (X w + b - y) / m, with a bias b that starts as the Python float 0.0."""
import numpy as np

NAME = "gradient_descent"
LOOPS = {"epochs": 300}
N = {"small": 2_000, "medium": 200_000}


def make_inputs(size, loop_scale=1):
    m = N[size]
    rng = np.random.default_rng(0)
    X = rng.standard_normal((m, 8))
    y = X @ np.arange(1.0, 9.0) + 3.0 + 0.1 * rng.standard_normal(m)
    return X, y, 0.05, LOOPS["epochs"] * loop_scale


def run(X, y, lr, epochs):
    m = X.shape[0]
    w = np.zeros(X.shape[1])
    b = 0.0
    for _ in range(epochs):
        r = X @ w + b - y
        w = w - lr * (X.T @ r) / m
        b = b - lr * r.mean()
    return w, b
