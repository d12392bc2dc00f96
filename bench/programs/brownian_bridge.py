"""Brownian bridges by simulation: Wiener paths as cumulative sums of sqrt(dt) normal
increments, B(t) = W(t) - t W(1), then the mean and variance across paths (which should
be 0 and t(1-t)) and each path's maximum excursion. No loop."""
import numpy as np

NAME = "brownian_bridge"
LOOPS = {}
N = {"small": 2000, "medium": 20_000}


def make_inputs(size, loop_scale=1):
    return N[size], 256, 3


def run(n_paths, n_steps, seed):
    rng = np.random.default_rng(seed)
    t = np.linspace(0, 1, n_steps + 1)
    dW = rng.standard_normal((n_paths, n_steps)) * np.sqrt(np.diff(t))
    W = np.concatenate([np.zeros((n_paths, 1)), np.cumsum(dW, axis=1)], axis=1)
    B = W - t * W[:, -1:]
    return B.mean(axis=0), B.var(axis=0), np.max(np.abs(B), axis=1)
