"""Binary morphology on a noisy mask: 3x3 dilation as the max of 9 shifted
slices of a padded array, erosion as the min, an opening, and then morphological
reconstruction by dilation (fill holes) - repeatedly dilate the marker and
intersect with the mask inside a while loop until nothing changes."""
import numpy as np

NAME = "morph_reconstruct"
LOOPS = {"max_iter": 10_000}
N = {"small": 96, "medium": 1_000}


def make_inputs(size, loop_scale=1):
    n = N[size]
    rng = np.random.default_rng(0)
    y, x = np.mgrid[0:n, 0:n]
    mask = np.zeros((n, n), dtype=bool)
    for _ in range(6):
        cx, cy, r = rng.uniform(0, n, 2).tolist() + [rng.uniform(n / 12, n / 5)]
        ring = np.abs(np.hypot(x - cx, y - cy) - r) < 1.5
        mask |= ring
    mask |= rng.random((n, n)) < 0.02
    return (mask.astype(np.uint8), int(LOOPS["max_iter"] * loop_scale))


def dilate(a):
    p = np.pad(a, 1, mode="constant", constant_values=0)
    n, m = a.shape
    out = a.copy()
    for di in range(3):
        for dj in range(3):
            np.maximum(out, p[di:di + n, dj:dj + m], out=out)
    return out


def erode(a):
    p = np.pad(a, 1, mode="constant", constant_values=1)
    n, m = a.shape
    out = a.copy()
    for di in range(3):
        for dj in range(3):
            np.minimum(out, p[di:di + n, dj:dj + m], out=out)
    return out


def run(mask, max_iter):
    opened = dilate(erode(mask))
    closed = erode(dilate(mask))
    # fill holes: reconstruct the background from the border, complement
    inv = 1 - closed
    marker = np.zeros_like(inv)
    marker[0, :] = inv[0, :]
    marker[-1, :] = inv[-1, :]
    marker[:, 0] = inv[:, 0]
    marker[:, -1] = inv[:, -1]
    it = 0
    while it < max_iter:
        nxt = np.minimum(dilate(marker), inv)
        it += 1
        if np.array_equal(nxt, marker):
            break
        marker = nxt
    filled = 1 - marker
    return opened, filled, it, int(filled.sum())
