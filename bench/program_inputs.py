"""Input makers several corpus programs share (bench/programs/*.py import them: the
bench folder is on sys.path when bench/run_programs.py runs). Inputs only: each
program's run() stays as its authors wrote it."""
import numpy as np


def image(h, w, seed):
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:h, 0:w]
    base = 80 + 60 * np.sin(xx / 17.0) * np.cos(yy / 23.0) + rng.normal(0, 10, (h, w))
    return np.clip(base, 0, 255).astype(np.uint8)


def blobs(n, d, k, seed):
    rng = np.random.default_rng(seed)
    centers = rng.normal(0, 3, (k, d))
    y = rng.integers(0, k, n)
    X = centers[y] + rng.standard_normal((n, d))
    return X, y


def diagonally_dominant(n, seed):
    a = np.random.default_rng(seed).standard_normal((n, n)) / np.sqrt(n)
    return a + 3 * np.eye(n)
