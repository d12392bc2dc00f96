"""FFT low-pass filter: transform each row of a sampled signal, zero the frequencies above a
cutoff, transform back; also the power spectrum |X(f)|^2."""
import numpy as np

NAME = "fft_lowpass"
LOOPS = {}
SHAPE = {"small": (16, 4096), "medium": (64, 65536)}


def make_inputs(size, loop_scale=1):
    rows, n = SHAPE[size]
    dt = 1e-3
    t = np.arange(n) * dt
    x = np.sin(2 * np.pi * 5 * t) + 0.5 * np.random.default_rng(0).standard_normal((rows, n))
    return x, dt, 20.0


def run(x, dt, cutoff):
    n = x.shape[-1]
    X = np.fft.rfft(x, axis=-1)
    freqs = np.fft.rfftfreq(n, d=dt)
    power = np.abs(X) ** 2
    X[:, freqs > cutoff] = 0
    return np.fft.irfft(X, n=n, axis=-1), power
