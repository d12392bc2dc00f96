"""Escape-time rendering of the Julia set of z^2 + c: iterate only the points still bounded
(boolean-mask fancy indexing) and record the iteration at which |z| exceeds 2."""
import numpy as np

NAME = "julia_set"
LOOPS = {"maxit": 60}
N = {"small": 200, "medium": 700}


def make_inputs(size, loop_scale=1):
    w = N[size]
    return w, w * 3 // 4, -0.8 + 0.156j, LOOPS["maxit"] * loop_scale


def run(w, h, c, maxit):
    x = np.linspace(-1.5, 1.5, w)
    y = np.linspace(-1.0, 1.0, h)
    Z = x[None, :] + 1j * y[:, None]
    out = np.zeros(Z.shape, dtype=int)
    mask = np.ones(Z.shape, dtype=bool)
    for i in range(maxit):
        Z[mask] = Z[mask]**2 + c
        escaped = np.abs(Z) > 2
        out[mask & escaped] = i
        mask &= ~escaped
    return out
