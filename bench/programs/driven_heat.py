"""1-D heat equation with a time-dependent source and a driven left end, as in a course's
"forced diffusion" exercise: u_t = alpha u_xx + A sin(omega t) g(x), u(0, t) = sin(2 pi t),
explicit FTCS steps with the clock carried as a Python float (t += dt)."""
import numpy as np

NAME = "driven_heat"
LOOPS = {"steps": 200}
N = {"small": 20_000, "medium": 2_000_000}


def make_inputs(size, loop_scale=1):
    n = N[size]
    x = np.linspace(0.0, 1.0, n)
    dx = x[1] - x[0]
    alpha = 1.0
    dt = 0.4 * dx * dx / alpha
    return np.zeros(n), x, alpha, dt, LOOPS["steps"] * loop_scale


def run(u, x, alpha, dt, steps):
    dx = x[1] - x[0]
    g = np.exp(-((x - 0.5) / 0.05) ** 2)
    t = 0.0
    for n in range(steps):
        lap = np.zeros_like(u)
        lap[1:-1] = (u[2:] - 2.0 * u[1:-1] + u[:-2]) / dx**2
        u = u + dt * (alpha * lap + 5.0 * np.sin(40.0 * t) * g)
        u[0] = np.sin(2.0 * np.pi * t)
        u[-1] = 0.0
        t += dt
    return u, t
