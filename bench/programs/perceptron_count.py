"""Perceptron training over full batches, counting the epochs with a mistake
(errors += int(...)) and summing the absolute error as a Python float."""
import numpy as np

NAME = "perceptron_count"
LOOPS = {"epochs": 200}
N = {"small": 2000, "medium": 200_000}


def make_inputs(size, loop_scale=1):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((N[size], 16))
    y = np.sign(X @ rng.standard_normal(16) + 0.1 * rng.standard_normal(N[size]))
    return X, y, np.zeros(16), LOOPS["epochs"] * loop_scale


def run(X, y, w, epochs):
    errors = 0
    total = 0.0
    for _ in range(epochs):
        pred = np.sign(X @ w)
        errors += int((pred != y).any())
        total += float(np.abs(pred - y).sum())
        w = w + 0.01 * (y - pred) @ X
    return w, errors, total
