"""Moving averages of a noisy signal: the simple moving average over a window from the
cumulative sum (S_{i+w} - S_i) / w, and the centred residual x - SMA."""
import numpy as np

NAME = "moving_average"
LOOPS = {}
N = {"small": 100_000, "medium": 8_000_000}


def make_inputs(size, loop_scale=1):
    n = N[size]
    t = np.linspace(0.0, 20.0, n)
    x = np.sin(t) + 0.3 * np.random.default_rng(0).standard_normal(n)
    return x, 51


def run(x, window):
    c = np.cumsum(np.insert(x, 0, 0.0))
    sma = (c[window:] - c[:-window]) / window
    half = window // 2
    resid = x[half:len(x) - half] - sma
    return sma, resid
