"""Rosenblatt's perceptron, online: one Python iteration per sample, w += lr (t - sign(x.w)) x,
counting the updates per epoch (Raschka, Python Machine Learning, chapter 2), on data
labelled by a fixed linear separator."""
import numpy as np

NAME = "perceptron_sgd"
LOOPS = {"epochs": 20}
N = {"small": 300, "medium": 3600}


def make_inputs(size, loop_scale=1):
    return np.random.default_rng(35).standard_normal((N[size], 10)), 0.1, LOOPS["epochs"] * loop_scale


def run(X, lr, epochs):
    w_true = np.arange(10) - 4.5
    y = np.sign(X @ w_true)
    w = np.zeros(X.shape[1])
    errors = []
    for epoch in range(epochs):
        err = 0
        for xi, target in zip(X, y):
            update = lr * (target - np.sign(xi @ w))
            w += update * xi
            err += int(update != 0.0)
        errors.append(err)
    return w, errors
