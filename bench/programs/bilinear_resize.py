"""Bilinear image resize: source coordinates by np.linspace, the four neighbours by fancy
indexing with floor / floor + 1 (clamped), and the weighted blend, in float32. The output
is 9/4 x 19/10 the input size. No loop."""
import numpy as np

from program_inputs import image

NAME = "bilinear_resize"
LOOPS = {}
N = {"small": 200, "medium": 640}


def make_inputs(size, loop_scale=1):
    n = N[size]
    return image(n, n, 39).astype(np.float32), n * 9 // 4, n * 19 // 10


def run(img, out_h, out_w):
    h, w = img.shape
    y = np.linspace(0, h - 1, out_h)
    x = np.linspace(0, w - 1, out_w)
    x0 = np.floor(x).astype(int)
    y0 = np.floor(y).astype(int)
    x1 = np.minimum(x0 + 1, w - 1)
    y1 = np.minimum(y0 + 1, h - 1)
    wx = (x - x0)[None, :]
    wy = (y - y0)[:, None]
    Ia = img[y0[:, None], x0[None, :]]
    Ib = img[y1[:, None], x0[None, :]]
    Ic = img[y0[:, None], x1[None, :]]
    Id = img[y1[:, None], x1[None, :]]
    out = (Ia * (1 - wx) * (1 - wy) + Ib * (1 - wx) * wy +
           Ic * wx * (1 - wy) + Id * wx * wy)
    return out.astype(np.float32)
