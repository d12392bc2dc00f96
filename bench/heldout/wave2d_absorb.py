"""2-D wave equation, leapfrog in time, first-order absorbing (Mur) edges and a Ricker
source injected at one grid point each step; seismogram recorded at a receiver row."""
import numpy as np
NAME = "wave2d_absorb"
LOOPS = {"steps": 60}
N = {"small": 100, "medium": 800}
def make_inputs(size, loop_scale=1):
    return N[size], LOOPS["steps"] * loop_scale
def run(n, steps):
    c, dx, dt = 1.0, 1.0, 0.5
    C = c * dt / dx
    p = np.zeros((n, n)); pold = np.zeros((n, n))
    rec = np.zeros((steps, n))
    f0 = 0.05
    for it in range(steps):
        t = it * dt
        a = (np.pi * f0 * (t - 20)) ** 2
        src = (1 - 2 * a) * np.exp(-a)
        lapl = np.zeros_like(p)
        lapl[1:-1, 1:-1] = p[2:, 1:-1] + p[:-2, 1:-1] + p[1:-1, 2:] + p[1:-1, :-2] - 4 * p[1:-1, 1:-1]
        pnew = 2 * p - pold + C ** 2 * lapl
        pnew[n // 2, n // 2] += src
        pnew[0, :] = p[1, :] + (C - 1) / (C + 1) * (pnew[1, :] - p[0, :])
        pnew[-1, :] = p[-2, :] + (C - 1) / (C + 1) * (pnew[-2, :] - p[-1, :])
        pold, p = p, pnew
        rec[it] = p[10, :]
    return p, rec
