"""Iterated 3x3 median filter for salt-and-pepper noise, in the NumPy idiom: pad with
edge values, stack the nine shifted views along a new axis and take np.median over it.
Only pixels flagged as impulses (0 or 255) are replaced (switching median), and the
filter repeats while any impulse is left, up to a few passes."""
import numpy as np
from program_inputs import image

NAME = "median3x3_stack"
LOOPS = {}
N = {"small": 96, "medium": 1024}


def make_inputs(size, loop_scale=1):
    n = N[size]
    img = image(n, n, 5)
    rng = np.random.default_rng(5)
    u = rng.random(img.shape)
    img[u < 0.05] = 0
    img[u > 0.95] = 255
    return (img,)


def run(img):
    out = img.copy()
    H, W = out.shape
    passes = 0
    while passes < 5:
        noisy = (out == 0) | (out == 255)
        if not noisy.any():
            break
        p = np.pad(out, 1, mode='edge')
        stack = np.stack([p[i:i + H, j:j + W] for i in range(3) for j in range(3)])
        med = np.median(stack, axis=0).astype(np.uint8)
        out[noisy] = med[noisy]
        passes += 1
    return out, passes
