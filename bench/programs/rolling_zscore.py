"""Rolling z-score of a random-walk series from cumulative sums (windowed mean and variance
as differences of cumsum and cumsum of squares), local peaks from the sign change of
np.diff, and the indices where |z| exceeds a threshold (pandas-free time-series recipe).
No loop."""
import numpy as np

NAME = "rolling_zscore"
LOOPS = {}
N = {"small": 50_000, "medium": 750_000}


def make_inputs(size, loop_scale=1):
    x = np.cumsum(np.random.default_rng(20).standard_normal(N[size]))
    return x, 250, 3.0


def run(x, w, thresh):
    c1 = np.cumsum(np.insert(x, 0, 0.0))
    c2 = np.cumsum(np.insert(x**2, 0, 0.0))
    mean = (c1[w:] - c1[:-w]) / w
    var = (c2[w:] - c2[:-w]) / w - mean**2
    std = np.sqrt(np.clip(var, 1e-12, None))
    z = (x[w - 1:] - mean) / std
    dx = np.diff(x)
    peaks = np.where((dx[:-1] > 0) & (dx[1:] <= 0))[0] + 1
    anomalies = np.flatnonzero(np.abs(z) > thresh) + w - 1
    return z, len(peaks), anomalies
