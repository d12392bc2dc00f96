"""Separable Gaussian blur: weights w_k ~ exp(-k^2 / 2 sigma^2), |k| <= 3 sigma, normalized;
reflect-pad the image, convolve the rows (sum of shifted slices), then the columns."""
import numpy as np

NAME = "gaussian_blur"
LOOPS = {}
N = {"small": 256, "medium": 2048}


def make_inputs(size, loop_scale=1):
    return np.random.default_rng(0).random((N[size], N[size])), 2.0


def run(img, sigma):
    radius = int(3 * sigma)
    k = np.arange(-radius, radius + 1)
    w = np.exp(-k ** 2 / (2 * sigma ** 2))
    w /= w.sum()
    ny, nx = img.shape
    pad = np.pad(img, radius, mode="reflect")
    tmp = np.zeros((ny + 2 * radius, nx))
    for i in range(2 * radius + 1):          # along x
        tmp += w[i] * pad[:, i:i + nx]
    out = np.zeros_like(img)
    for i in range(2 * radius + 1):          # along y
        out += w[i] * tmp[i:i + ny, :]
    return out
