"""Savitzky-Golay smoothing: the filter taps are the first row of the pseudo-inverse of the
local polynomial Vandermonde matrix, applied with np.convolve after odd reflection at the
ends; then a normalised autocorrelation by np.correlate (Numerical Recipes 14.8; the
SciPy cookbook recipe). No loop."""
import numpy as np

NAME = "savgol_convolve"
LOOPS = {}
N = {"small": 20_000, "medium": 300_000}


def make_inputs(size, loop_scale=1):
    n = N[size]
    y = np.sin(np.linspace(0, 20, n)) + 0.2 * np.random.default_rng(18).standard_normal(n)
    return y, 31, 3


def run(y, window, order):
    half = window // 2
    k = np.arange(-half, half + 1)
    A = np.vander(k, order + 1, increasing=True)
    coeffs = np.linalg.pinv(A)[0]
    first = y[0] - np.abs(y[1:half + 1][::-1] - y[0])
    last = y[-1] + np.abs(y[-half - 1:-1][::-1] - y[-1])
    ypad = np.concatenate((first, y, last))
    smooth = np.convolve(ypad, coeffs[::-1], mode='valid')
    acf = np.correlate(smooth - smooth.mean(), smooth[:200] - smooth.mean(), mode='valid')
    return smooth, acf[:50] / acf[0]
