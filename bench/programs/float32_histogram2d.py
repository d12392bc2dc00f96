"""Polar 2-D histogram of float32 points in [-1, 1]^2: radius by np.hypot, angle by
np.arctan2, bin indices as int32, counts by the unbuffered np.add.at, normalised density
returned as float32 with a float32 mean radius. No loop."""
import numpy as np

NAME = "float32_histogram2d"
LOOPS = {}
N = {"small": 40_000, "medium": 480_000}


def make_inputs(size, loop_scale=1):
    return np.random.default_rng(44).uniform(-1, 1, (N[size], 2)).astype(np.float32), 12


def run(pts, nb):
    r = np.hypot(pts[:, 0], pts[:, 1])
    theta = np.arctan2(pts[:, 1], pts[:, 0])
    inside = r < 1
    ri = np.minimum((r * nb).astype(np.int32), nb - 1)
    ti = ((theta + np.pi) / (2 * np.pi) * nb).astype(np.int32) % nb
    flat = ri * nb + ti
    counts = np.zeros(nb * nb, dtype=np.int64)
    np.add.at(counts, flat[inside], 1)
    dens = counts.reshape(nb, nb) / counts.sum()
    return dens.astype(np.float32), r.mean(dtype=np.float32)
