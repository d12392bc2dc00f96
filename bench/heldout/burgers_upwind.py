"""Inviscid Burgers equation u_t + (u^2/2)_x = 0 with a first-order upwind
(Godunov-like) flux choice made per cell with np.where on the sign of u, and an
adaptive CFL time step dt = cfl*dx/max|u| inside a while loop that runs until t_end."""
import numpy as np

NAME = "burgers_upwind"
LOOPS = {"t_end": 1}
N = {"small": 2_000, "medium": 1_000_000}


def make_inputs(size, loop_scale=1):
    n = N[size]
    x = np.linspace(-1, 1, n)
    rng = np.random.default_rng(0)
    u0 = np.sin(np.pi * x) + 0.5 + 0.05 * rng.standard_normal(n)
    dx = x[1] - x[0]
    t_end = 0.05 * loop_scale
    return (u0, dx, t_end, 0.5)


def run(u0, dx, t_end, cfl):
    u = u0.copy()
    t = 0.0
    nsteps = 0
    while t < t_end:
        smax = np.max(np.abs(u))
        dt = cfl * dx / smax
        if t + dt > t_end:
            dt = t_end - t
        f = 0.5 * u ** 2
        # backward difference where u>0, forward where u<0
        dfb = np.zeros_like(u)
        dff = np.zeros_like(u)
        dfb[1:] = f[1:] - f[:-1]
        dff[:-1] = f[1:] - f[:-1]
        u = u - dt / dx * np.where(u > 0, dfb, dff)
        t += dt
        nsteps += 1
    return u, nsteps
