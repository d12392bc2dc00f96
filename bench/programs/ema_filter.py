"""Exponential moving average of many signals at once (one row per time step):
y_t = alpha x_t + (1 - alpha) y_{t-1}, a first-order IIR low-pass, then the filtered
signals' variance per channel."""
import numpy as np

NAME = "ema_filter"
LOOPS = {"n_t": 100}
N = {"small": 1000, "medium": 50_000}


def make_inputs(size, loop_scale=1):
    x = np.random.default_rng(0).standard_normal((LOOPS["n_t"] * loop_scale, N[size]))
    return x, 0.1


def run(x, alpha):
    y = np.empty_like(x)
    y[0] = x[0]
    for t in range(1, x.shape[0]):
        y[t] = alpha * x[t] + (1 - alpha) * y[t - 1]
    return y, y.var(axis=0)
