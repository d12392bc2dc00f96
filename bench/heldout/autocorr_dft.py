"""Spectral analysis of an AR(2) process: the process is generated with a Python
recursion x_t = a1 x_{t-1} + a2 x_{t-2} + e_t, then the biased autocorrelation
r_k = sum_t (x_t - m)(x_{t+k} - m) / sum (x-m)^2 is computed with a manual np.dot loop
over lags, and the periodogram |X_k|^2/N from an explicit DFT matrix
W[k, n] = exp(-2 pi i k n / N) applied to the first block of samples."""
import numpy as np

NAME = "autocorr_dft"
LOOPS = {"lags": 100}
N = {"small": 4_000, "medium": 400_000}


def make_inputs(size, loop_scale=1):
    n = N[size]
    rng = np.random.default_rng(0)
    e = rng.standard_normal(n)
    maxlag = int(LOOPS["lags"] * loop_scale)
    return (e, 0.75, -0.5, maxlag, 256)


def run(e, a1, a2, maxlag, nfft):
    n = len(e)
    x = np.zeros(n)
    x[0] = e[0]
    x[1] = a1 * x[0] + e[1]
    for t in range(2, n):
        x[t] = a1 * x[t - 1] + a2 * x[t - 2] + e[t]
    xc = x - x.mean()
    denom = np.dot(xc, xc)
    acf = np.empty(maxlag + 1)
    for k in range(maxlag + 1):
        acf[k] = np.dot(xc[:n - k], xc[k:]) / denom
    k = np.arange(nfft)
    W = np.exp(-2j * np.pi * np.outer(k, k) / nfft)
    nblocks = n // nfft
    blocks = xc[:nblocks * nfft].reshape(nblocks, nfft) * np.hanning(nfft)
    X = blocks @ W.T
    psd = np.mean(np.abs(X) ** 2, axis=0) / nfft
    peak = int(np.argmax(psd[:nfft // 2]))
    return acf, psd[:nfft // 2 + 1], peak
