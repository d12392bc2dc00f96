"""Least-squares regression by gradient descent with momentum and a decaying learning
rate lr = lr0 / (1 + decay * epoch), recording the loss every epoch: the training loop
of an introductory machine-learning notebook."""
import numpy as np

NAME = "lr_schedule_gd"
LOOPS = {"epochs": 150}
N = {"small": (2000, 20), "medium": (200_000, 50)}


def make_inputs(size, loop_scale=1):
    m, d = N[size]
    rng = np.random.default_rng(7)
    X = rng.standard_normal((m, d))
    w_true = rng.standard_normal(d)
    y = X @ w_true + 0.1 * rng.standard_normal(m)
    return X, y, LOOPS["epochs"] * loop_scale


def run(X, y, epochs):
    lr0, decay, beta = 0.1, 0.01, 0.9
    w = np.zeros(X.shape[1])
    velocity = np.zeros_like(w)
    losses = np.zeros(epochs)
    for epoch in range(epochs):
        residual = X @ w - y
        losses[epoch] = np.mean(residual**2)
        grad = 2.0 * X.T @ residual / len(y)
        lr = lr0 / (1.0 + decay * epoch)
        velocity = beta * velocity - lr * grad
        w = w + velocity
    return w, losses
