"""Particle-in-cell charge deposit: particles' charges binned to a grid with np.add.at,
then a smoothing pass and a field by central differences, repeated per step with a push."""
import numpy as np
NAME = "scatter_density"
LOOPS = {"steps": 10}
N = {"small": 20000, "medium": 2000000}
def make_inputs(size, loop_scale=1):
    rng = np.random.default_rng(3)
    return rng.random(N[size]), rng.normal(0, 0.01, N[size]), 256, LOOPS["steps"] * loop_scale
def run(x, v, ngrid, steps):
    dx = 1.0 / ngrid
    for s in range(steps):
        idx = (x / dx).astype(np.int64) % ngrid
        rho = np.zeros(ngrid)
        np.add.at(rho, idx, 1.0)
        rho = rho / x.size * ngrid - 1.0
        E = -(np.roll(rho, -1) - np.roll(rho, 1)) / (2 * dx)
        v = v + 0.001 * E[idx]
        x = (x + v * 0.01) % 1.0
    return x, v, rho
