"""Windowed-sinc low-pass FIR filter applied to a noisy signal as a sum of
shifted slices y[n] = sum_k h[k] x[n-k] (explicit loop over taps), followed by a
moving RMS envelope sqrt(mean of y^2 over a window) from a cumulative sum and
simple peak picking of the envelope with boolean masks."""
import numpy as np

NAME = "fir_moving_rms"
LOOPS = {"taps": 63}
N = {"small": 8_000, "medium": 2_000_000}


def make_inputs(size, loop_scale=1):
    n = N[size]
    rng = np.random.default_rng(0)
    t = np.arange(n) / 1000.0
    burst = (np.sin(2 * np.pi * 0.5 * t) > 0.3).astype(float)
    x = burst * np.sin(2 * np.pi * 40 * t) + 0.5 * rng.standard_normal(n)
    ntaps = int(LOOPS["taps"] * loop_scale) | 1
    return (x, ntaps, 0.1, 101)


def run(x, ntaps, fc, win):
    k = np.arange(ntaps) - (ntaps - 1) / 2
    h = 2 * fc * np.sinc(2 * fc * k) * np.hamming(ntaps)
    h /= h.sum()
    y = np.zeros_like(x)
    n = len(x)
    for j in range(ntaps):
        y[j:] += h[j] * x[:n - j]
    c = np.concatenate(([0.0], np.cumsum(y * y)))
    rms = np.sqrt((c[win:] - c[:-win]) / win)
    peaks = (rms[1:-1] > rms[:-2]) & (rms[1:-1] >= rms[2:]) & (rms[1:-1] > 0.5 * rms.max())
    idx = np.nonzero(peaks)[0] + 1
    return y, rms, idx
