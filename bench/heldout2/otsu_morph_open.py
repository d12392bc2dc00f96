"""Otsu's threshold from a uint8 histogram (np.bincount, cumulative sums, argmax of the
between-class variance), then a binary opening (erosion then dilation with a 3x3 cross)
written with shifted slices on a padded boolean image, and connected foreground area
per image row band via sums."""
import numpy as np
from program_inputs import image

NAME = "otsu_morph_open"
LOOPS = {"iters": 3}
N = {"small": 256, "medium": 2048}


def make_inputs(size, loop_scale=1):
    n = N[size]
    return (image(n, n, 7), int(LOOPS["iters"] * loop_scale))


def erode(b):
    p = np.pad(b, 1, mode='constant', constant_values=False)
    return b & p[:-2, 1:-1] & p[2:, 1:-1] & p[1:-1, :-2] & p[1:-1, 2:]


def dilate(b):
    p = np.pad(b, 1, mode='constant', constant_values=False)
    return b | p[:-2, 1:-1] | p[2:, 1:-1] | p[1:-1, :-2] | p[1:-1, 2:]


def run(img, iters):
    hist = np.bincount(img.ravel(), minlength=256).astype(np.float64)
    p = hist / hist.sum()
    omega = np.cumsum(p)
    mu = np.cumsum(p * np.arange(256))
    mu_t = mu[-1]
    with np.errstate(divide='ignore', invalid='ignore'):
        sigma_b = (mu_t * omega - mu) ** 2 / (omega * (1.0 - omega))
    sigma_b = np.nan_to_num(sigma_b)
    t = int(np.argmax(sigma_b))
    fg = img > t
    for _ in range(iters):
        fg = erode(fg)
    for _ in range(iters):
        fg = dilate(fg)
    bands = fg.reshape(16, -1, fg.shape[1]).sum(axis=(1, 2))
    return t, fg, bands
