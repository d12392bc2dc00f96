"""Streaming statistics over the rows of a data matrix: Welford's online update
delta = x - mean; mean += delta / k; M2 += delta * (x - mean) for every column at
once, skipping rows that contain NaNs (an if on the data), followed by per-column
z-scores (X - mean)/std with keepdims broadcasting, an outlier mask |z|>3, and a
histogram of z via np.bincount on clipped integer bins."""
import numpy as np

NAME = "welford_zscore"
LOOPS = {"rows": 1_000}
N = {"small": 16, "medium": 4_000}


def make_inputs(size, loop_scale=1):
    ncol = N[size]
    nrow = int(LOOPS["rows"] * loop_scale)
    rng = np.random.default_rng(0)
    X = rng.standard_normal((nrow, ncol)) * rng.uniform(0.5, 3, ncol) + rng.uniform(-5, 5, ncol)
    X[rng.random((nrow, ncol)) < 0.001] = np.nan
    X[rng.random((nrow, ncol)) < 0.002] *= 8   # outliers
    return (X.astype(np.float32),)


def run(X):
    nrow, ncol = X.shape
    mean = np.zeros(ncol)
    M2 = np.zeros(ncol)
    k = 0
    skipped = 0
    for i in range(nrow):
        row = X[i].astype(np.float64)
        if np.isnan(row).any():
            skipped += 1
            continue
        k += 1
        delta = row - mean
        mean += delta / k
        M2 += delta * (row - mean)
    std = np.sqrt(M2 / (k - 1))
    good = ~np.isnan(X).any(axis=1)
    Xg = X[good].astype(np.float64)
    z = (Xg - mean[None, :]) / std[None, :]
    colmax = np.abs(z).max(axis=0, keepdims=True)
    outliers = np.abs(z) > 3
    bins = np.clip(np.floor((z + 4) * 4).astype(np.int32), 0, 31)
    hist = np.bincount(bins.ravel(), minlength=32)
    return mean, std, skipped, outliers.sum(axis=0), hist, colmax
