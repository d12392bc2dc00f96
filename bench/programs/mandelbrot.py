"""Mandelbrot set escape counts: z <- z^2 + c for a fixed number of iterations, only where
|z| <= 2 still (np.where), counting the iterations each point stayed bounded."""
import numpy as np

NAME = "mandelbrot"
LOOPS = {"maxiter": 30}
N = {"small": 256, "medium": 2048}


def make_inputs(size, loop_scale=1):
    return -2.0, 0.5, -1.25, 1.25, N[size], N[size], LOOPS["maxiter"] * loop_scale


def run(xmin, xmax, ymin, ymax, width, height, maxiter):
    x = np.linspace(xmin, xmax, width)
    y = np.linspace(ymin, ymax, height)
    c = x[None, :] + 1j * y[:, None]
    z = np.zeros_like(c)
    counts = np.zeros(c.shape, dtype=np.int32)
    for _ in range(maxiter):
        mask = np.abs(z) <= 2.0
        z = np.where(mask, z * z + c, z)
        counts += mask
    return counts
