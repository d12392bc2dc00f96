"""City-block distance transform of a binary mask by the two-pass chamfer algorithm
(Rosenfeld & Pfaltz): a forward raster pass from the top-left neighbours, a backward pass
from the bottom-right ones, per pixel in nested Python loops. The row count is the loop
count; N[size] is the width."""
import numpy as np

NAME = "chamfer_distance"
LOOPS = {"rows": 48}
N = {"small": 48, "medium": 576}


def make_inputs(size, loop_scale=1):
    return (np.random.default_rng(27).random((LOOPS["rows"] * loop_scale, N[size])) > 0.97,)


def run(mask):
    h, w = mask.shape
    INF = 10**6
    d = np.where(mask, 0, INF).astype(np.int64)
    for i in range(h):
        for j in range(w):
            if i > 0:
                d[i, j] = min(d[i, j], d[i - 1, j] + 1)
            if j > 0:
                d[i, j] = min(d[i, j], d[i, j - 1] + 1)
    for i in range(h - 1, -1, -1):
        for j in range(w - 1, -1, -1):
            if i < h - 1:
                d[i, j] = min(d[i, j], d[i + 1, j] + 1)
            if j < w - 1:
                d[i, j] = min(d[i, j], d[i, j + 1] + 1)
    return d
