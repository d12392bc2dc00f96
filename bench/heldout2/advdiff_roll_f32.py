"""Periodic 1-D advection-diffusion c_t + a c_x = D c_xx in float32, first-order upwind
for advection and central differences for diffusion, neighbours by np.roll. Several
tracer profiles (rows) advance together; the mass of each is recorded every 10 steps."""
import numpy as np

NAME = "advdiff_roll_f32"
LOOPS = {"steps": 300}
N = {"small": 1024, "medium": 200_000}


def make_inputs(size, loop_scale=1):
    n = N[size]
    x = np.linspace(0, 1, n, endpoint=False, dtype=np.float32)
    centers = np.array([0.2, 0.4, 0.6, 0.8], dtype=np.float32)
    c0 = np.exp(-((x[None, :] - centers[:, None]) / np.float32(0.03)) ** 2).astype(np.float32)
    vel = np.array([1.0, 0.5, -0.5, -1.0], dtype=np.float32)
    steps = int(LOOPS["steps"] * loop_scale)
    return (c0, vel, np.float32(1e-4), steps)


def run(c0, vel, D, steps):
    c = c0.copy()
    n = c.shape[1]
    dx = np.float32(1.0 / n)
    dt = np.float32(0.4) * dx / np.abs(vel).max()
    a = vel[:, None]
    ap = np.maximum(a, 0)
    am = np.minimum(a, 0)
    mass = []
    for k in range(steps):
        cl = np.roll(c, 1, axis=1)
        cr = np.roll(c, -1, axis=1)
        adv = ap * (c - cl) / dx + am * (cr - c) / dx
        dif = D * (cr - 2 * c + cl) / (dx * dx)
        c = c + dt * (dif - adv)
        if k % 10 == 0:
            mass.append(c.sum(axis=1) * dx)
    return c, np.array(mass)
