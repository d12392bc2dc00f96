"""Time-delay estimation between a reference microphone and several others: each
channel is cross-correlated with the reference using np.correlate (mode 'full'), the
lag of the peak refined by parabolic interpolation, and the normalized coherence
of the aligned signals computed with np.roll."""
import numpy as np

NAME = "tdoa_correlate"
LOOPS = {}
N = {"small": 2_000, "medium": 50_000}


def make_inputs(size, loop_scale=1):
    n = N[size]
    rng = np.random.default_rng(31)
    src = np.convolve(rng.standard_normal(n + 200), np.ones(5) / 5, mode='same')
    delays = np.array([0, 7, -12, 25, 40, -3])
    chans = np.stack([src[100 + d:100 + d + n] for d in delays])
    chans = chans + 0.3 * rng.standard_normal(chans.shape)
    return (chans,)


def run(chans):
    ref = chans[0] - chans[0].mean()
    n = ref.size
    lags = np.arange(-n + 1, n)
    est = np.zeros(chans.shape[0])
    coh = np.zeros(chans.shape[0])
    for c in range(chans.shape[0]):
        sig = chans[c] - chans[c].mean()
        xc = np.correlate(sig, ref, mode='full')
        i = np.argmax(xc)
        if 0 < i < xc.size - 1:
            y0, y1, y2 = xc[i - 1], xc[i], xc[i + 1]
            frac = 0.5 * (y0 - y2) / (y0 - 2 * y1 + y2)
        else:
            frac = 0.0
        est[c] = lags[i] + frac
        aligned = np.roll(sig, -lags[i])
        coh[c] = np.dot(aligned, ref) / np.sqrt(np.dot(aligned, aligned) * np.dot(ref, ref))
    return est, coh
