"""Second-order low-pass IIR filter with coefficients from Robert Bristow-Johnson's Audio EQ
Cookbook, run sample by sample in direct form I (a Python loop over the signal). The loop
count is the signal length: LOOPS scales it, N sets it per size."""
import numpy as np

NAME = "iir_biquad"
LOOPS = {"samples": 4000}
N = {"small": 4000, "medium": 48_000}


def make_inputs(size, loop_scale=1):
    n = LOOPS["samples"] * loop_scale * N[size] // N["small"]
    return np.random.default_rng(19).standard_normal(n), 1000.0, 44100.0, 0.707


def run(x, f0, fs, Q):
    """RBJ cookbook low-pass biquad, direct form I, sample loop."""
    w0 = 2 * np.pi * f0 / fs
    alpha = np.sin(w0) / (2 * Q)
    b0 = (1 - np.cos(w0)) / 2
    b1 = 1 - np.cos(w0)
    b2 = (1 - np.cos(w0)) / 2
    a0 = 1 + alpha
    a1 = -2 * np.cos(w0)
    a2 = 1 - alpha
    y = np.zeros_like(x)
    x1 = x2 = y1 = y2 = 0.0
    for n in range(len(x)):
        y[n] = (b0 * x[n] + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2) / a0
        x2, x1 = x1, x[n]
        y2, y1 = y1, y[n]
    return y
