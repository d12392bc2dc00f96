"""2-D wave equation with a point source: leapfrog steps of u_tt = c^2 (u_xx + u_yy) on a
square membrane with fixed edges, driven at its centre by a Ricker-like pulse
f(t) = (1 - 2 (pi f0 (t - t0))^2) exp(-(pi f0 (t - t0))^2) at time t = n dt."""
import numpy as np

NAME = "wave_point_source"
LOOPS = {"steps": 120}
N = {"small": 128, "medium": 1024}


def make_inputs(size, loop_scale=1):
    n = N[size]
    return n, 1.0, 0.5 / n, LOOPS["steps"] * loop_scale


def run(n, c, dt, steps):
    h = 1.0 / n
    r2 = (c * dt / h) ** 2
    u_prev = np.zeros((n, n))
    u = np.zeros((n, n))
    f0, t0 = 20.0, 0.05
    mid = n // 2
    for k in range(steps):
        arg = (np.pi * f0 * (k * dt - t0)) ** 2
        u_next = np.zeros_like(u)
        u_next[1:-1, 1:-1] = (2.0 * u[1:-1, 1:-1] - u_prev[1:-1, 1:-1]
                              + r2 * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:]
                                      + u[1:-1, :-2] - 4.0 * u[1:-1, 1:-1]))
        u_next[mid, mid] += dt**2 * (1.0 - 2.0 * arg) * np.exp(-arg)
        u_prev, u = u, u_next
    return u
