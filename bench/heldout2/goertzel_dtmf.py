"""DTMF tone detection with the Goertzel algorithm: the second-order recurrence
s[n] = x[n] + 2 cos(w) s[n-1] - s[n-2] is run sample by sample, vectorized over the
eight DTMF frequencies and all frames at once; the power per frequency gives the
key pressed in each frame."""
import numpy as np

NAME = "goertzel_dtmf"
LOOPS = {}
N = {"small": 16, "medium": 4000}

LOW = np.array([697.0, 770.0, 852.0, 941.0])
HIGH = np.array([1209.0, 1336.0, 1477.0, 1633.0])
KEYS = np.array(list("123A456B789C*0#D"))


def make_inputs(size, loop_scale=1):
    nframes = N[size]
    fs = 8000.0
    flen = 205
    rng = np.random.default_rng(12)
    keys = rng.integers(0, 16, nframes)
    t = np.arange(flen) / fs
    frames = (np.sin(2 * np.pi * LOW[keys // 4][:, None] * t)
              + np.sin(2 * np.pi * HIGH[keys % 4][:, None] * t)
              + 0.3 * rng.standard_normal((nframes, flen)))
    return (frames, fs)


def run(frames, fs):
    nframes, flen = frames.shape
    freqs = np.concatenate([LOW, HIGH])
    k = np.round(flen * freqs / fs)
    w = 2 * np.pi * k / flen
    coeff = 2 * np.cos(w)
    s1 = np.zeros((nframes, freqs.size))
    s2 = np.zeros((nframes, freqs.size))
    for n in range(flen):
        s0 = frames[:, n:n + 1] + coeff * s1 - s2
        s2 = s1
        s1 = s0
    power = s1 ** 2 + s2 ** 2 - coeff * s1 * s2
    row = np.argmax(power[:, :4], axis=1)
    col = np.argmax(power[:, 4:], axis=1)
    return power, KEYS[row * 4 + col]
