"""Unsharp masking of an 8-bit image: separable Gaussian blur (float32 taps, reflect
padding, one shifted-slice accumulation per tap), sharp = f + amount (f - blur) clipped to
0..255 and cast back to uint8, plus the summed |image - blur| edge strength in integers.
The tap loop's length is set by sigma: no LOOPS entry."""
import numpy as np

from program_inputs import image

NAME = "unsharp_mask_uint8"
LOOPS = {}
N = {"small": 300, "medium": 1050}


def make_inputs(size, loop_scale=1):
    return image(N[size], N[size], 40), 1.5, 1.0


def run(img, sigma, amount):
    radius = int(3 * sigma)
    xs = np.arange(-radius, radius + 1)
    kern = np.exp(-xs**2 / (2 * sigma**2)).astype(np.float32)
    kern /= kern.sum()
    f = img.astype(np.float32)
    pad = np.pad(f, radius, mode='reflect')
    tmp = np.zeros((pad.shape[0], f.shape[1]), dtype=np.float32)
    for i, kv in enumerate(kern):
        tmp += kv * pad[:, i:i + f.shape[1]]
    blur = np.zeros_like(f)
    for i, kv in enumerate(kern):
        blur += kv * tmp[i:i + f.shape[0], :]
    sharp = f + amount * (f - blur)
    np.clip(sharp, 0, 255, out=sharp)
    edges = np.abs(img.astype(np.int16) - blur.astype(np.int16)).astype(np.int32)
    return sharp.astype(np.uint8), edges.sum()
