"""Least squares fitted with the Adam optimiser (Kingma & Ba): exponential moving averages
of the gradient and its square, bias correction, step lr m_hat / (sqrt(v_hat) + eps);
records the loss per step."""
import numpy as np

NAME = "adam_least_squares"
LOOPS = {"steps": 300}
N = {"small": 500, "medium": 12_000}


def make_inputs(size, loop_scale=1):
    n = N[size]
    A = np.random.default_rng(32).standard_normal((n, 20))
    y = np.random.default_rng(33).standard_normal(n)
    return A, y, LOOPS["steps"] * loop_scale


def run(A, y, steps):
    lr, b1, b2, eps = 1e-2, 0.9, 0.999, 1e-8
    w = np.zeros(A.shape[1])
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    losses = np.empty(steps)
    for t in range(1, steps + 1):
        r = A @ w - y
        losses[t - 1] = 0.5 * np.mean(r**2)
        g = A.T @ r / len(y)
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        mhat = m / (1 - b1**t)
        vhat = v / (1 - b2**t)
        w -= lr * mhat / (np.sqrt(vhat) + eps)
    return w, losses
