"""Windowed-sinc low-pass FIR design (Hamming window) applied three ways: a loop over
taps accumulating shifted copies y[k:] += h[k] x[:n-k], np.convolve, and a block-wise
overlap-add with np.convolve per block. Also the filter's magnitude response on a grid
by a direct DTFT sum over taps."""
import numpy as np

NAME = "fir_windowed_sinc"
LOOPS = {}
N = {"small": 20_000, "medium": 2_000_000}


def make_inputs(size, loop_scale=1):
    n = N[size]
    fs = 1000.0
    t = np.arange(n) / fs
    rng = np.random.default_rng(2)
    x = np.sin(2 * np.pi * 10 * t) + 0.5 * np.sin(2 * np.pi * 200 * t) + 0.2 * rng.standard_normal(n)
    return (x, 0.05, 101)


def run(x, fc, ntaps):
    m = np.arange(ntaps) - (ntaps - 1) / 2
    h = 2 * fc * np.sinc(2 * fc * m)
    h *= 0.54 - 0.46 * np.cos(2 * np.pi * np.arange(ntaps) / (ntaps - 1))
    h /= h.sum()
    n = x.size
    y = np.zeros(n)
    for k in range(ntaps):
        y[k:] += h[k] * x[:n - k]
    y2 = np.convolve(x, h)[:n]
    # overlap-add in blocks
    B = 1024
    y3 = np.zeros(n + ntaps - 1)
    for start in range(0, n, B):
        blk = x[start:start + B]
        y3[start:start + blk.size + ntaps - 1] += np.convolve(blk, h)
    y3 = y3[:n]
    w = np.linspace(0, np.pi, 256)
    H = np.zeros(256, dtype=complex)
    for k in range(ntaps):
        H += h[k] * np.exp(-1j * w * k)
    return y, np.abs(y - y2).max(), np.abs(y - y3).max(), 20 * np.log10(np.abs(H) + 1e-12)
