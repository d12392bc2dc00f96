"""Repeated 3x3 box blur of a float32 image (the mean of each pixel's 3x3 neighbourhood),
edges left as they are; a few passes approximate a Gaussian blur."""
import numpy as np

NAME = "box_blur"
LOOPS = {"passes": 10}
N = {"small": 256, "medium": 2048}


def make_inputs(size, loop_scale=1):
    img = np.random.default_rng(0).random((N[size], N[size]), dtype=np.float32)
    return img, LOOPS["passes"] * loop_scale


def run(img, passes):
    for _ in range(passes):
        out = img.copy()
        out[1:-1, 1:-1] = (img[:-2, :-2] + img[:-2, 1:-1] + img[:-2, 2:]
                           + img[1:-1, :-2] + img[1:-1, 1:-1] + img[1:-1, 2:]
                           + img[2:, :-2] + img[2:, 1:-1] + img[2:, 2:]) / 9
        img = out
    return img
