"""Histogram equalisation of an 8-bit image with NumPy, as in the OpenCV-Python tutorial:
histogram, cumulative distribution, masked-array stretch of the CDF to 0..255, then a
lookup of every pixel. No loop."""
import numpy as np

from program_inputs import image

NAME = "hist_equalize"
LOOPS = {}
N = {"small": 384, "medium": 1344}


def make_inputs(size, loop_scale=1):
    return (image(N[size], N[size], 38),)


def run(img):
    """OpenCV tutorial histogram equalisation with numpy."""
    hist, bins = np.histogram(img.flatten(), 256, [0, 256])
    cdf = hist.cumsum()
    cdf_normalized = cdf * float(hist.max()) / cdf.max()
    cdf_m = np.ma.masked_equal(cdf, 0)
    cdf_m = (cdf_m - cdf_m.min()) * 255 / (cdf_m.max() - cdf_m.min())
    cdf = np.ma.filled(cdf_m, 0).astype('uint8')
    img2 = cdf[img]
    return img2, cdf_normalized
