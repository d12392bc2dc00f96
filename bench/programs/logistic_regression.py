"""Logistic regression by batch gradient descent on the mean cross-entropy:
p = sigmoid(X w + b);  w -= lr X^T (p - y) / n;  b -= lr mean(p - y)."""
import numpy as np

NAME = "logistic_regression"
LOOPS = {"iters": 50}
SHAPE = {"small": (5000, 10), "medium": (500_000, 20)}


def make_inputs(size, loop_scale=1):
    n, d = SHAPE[size]
    rng = np.random.default_rng(0)
    X = rng.standard_normal((n, d))
    w_true = rng.standard_normal(d)
    y = (X @ w_true + 0.5 * rng.standard_normal(n) > 0).astype(np.float64)
    return X, y, 0.5, LOOPS["iters"] * loop_scale


def run(X, y, lr, iters):
    w = np.zeros(X.shape[1])
    b = 0.0
    for _ in range(iters):
        p = 1.0 / (1.0 + np.exp(-(X @ w + b)))
        grad_w = X.T @ (p - y) / len(y)
        grad_b = np.mean(p - y)
        w -= lr * grad_w
        b -= lr * grad_b
    return w, b
