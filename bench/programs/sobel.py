"""Sobel edge detector on a float32 image: Gx = [[-1,0,1],[-2,0,2],[-1,0,1]] and Gy its
transpose, by slicing; magnitude hypot(Gx, Gy) and edges where it exceeds a fraction of its max."""
import numpy as np

NAME = "sobel"
LOOPS = {}
N = {"small": 256, "medium": 4096}


def make_inputs(size, loop_scale=1):
    n = N[size]
    y, x = np.mgrid[0:n, 0:n] / n
    img = (np.sin(12 * x) * np.cos(9 * y) > 0).astype(np.float32)  # a checkered pattern
    img += 0.1 * np.random.default_rng(0).random((n, n), dtype=np.float32)
    return img, 0.25


def run(img, frac):
    gx = (img[:-2, 2:] + 2 * img[1:-1, 2:] + img[2:, 2:]) - (img[:-2, :-2] + 2 * img[1:-1, :-2] + img[2:, :-2])
    gy = (img[2:, :-2] + 2 * img[2:, 1:-1] + img[2:, 2:]) - (img[:-2, :-2] + 2 * img[:-2, 1:-1] + img[:-2, 2:])
    mag = np.hypot(gx, gy)
    edges = mag > frac * mag.max()
    return mag, edges
