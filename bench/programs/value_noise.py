"""Fractal value noise: per octave a random lattice of (2^(o+1) + 1)^2 values, smoothstep-
weighted bilinear interpolation through meshgrid fancy indexing, amplitudes halving per
octave (the Perlin-noise tutorial recipe). The octave loop cannot be scaled 4x (the lattice
grows as 4^octaves): no LOOPS entry."""
import numpy as np

NAME = "value_noise"
LOOPS = {}
N = {"small": 256, "medium": 1024}


def make_inputs(size, loop_scale=1):
    return N[size], 6, 41


def run(n, octaves, seed):
    rng = np.random.default_rng(seed)
    img = np.zeros((n, n))
    for o in range(octaves):
        freq = 2**(o + 1)
        g = rng.random((freq + 1, freq + 1))
        lin = np.linspace(0, freq, n, endpoint=False)
        xi = lin.astype(int)
        xf = lin - xi
        u = xf * xf * (3 - 2 * xf)
        X0, Y0 = np.meshgrid(xi, xi)
        U, V = np.meshgrid(u, u)
        top = g[Y0, X0] * (1 - U) + g[Y0, X0 + 1] * U
        bot = g[Y0 + 1, X0] * (1 - U) + g[Y0 + 1, X0 + 1] * U
        img += (top * (1 - V) + bot * V) / 2**o
    return img
