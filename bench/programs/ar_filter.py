"""A first-order recursive (IIR) filter, y_i = a y_{i-1} + (1 - a) x_i: exponential
smoothing of a noisy signal, element by element as signal-processing code writes it."""
import numpy as np

NAME = "ar_filter"
LOOPS = {}
N = {"small": 2_000, "medium": 200_000}


def make_inputs(size, loop_scale=1):
    rng = np.random.default_rng(0)
    t = np.linspace(0.0, 10.0, N[size])
    return np.sin(t) + 0.3 * rng.standard_normal(t.shape), 0.9


def run(x, a):
    y = np.empty_like(x)
    y[0] = x[0]
    for i in range(1, x.shape[0]):
        y[i] = a * y[i - 1] + (1.0 - a) * x[i]
    return y
