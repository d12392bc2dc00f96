"""Linear advection u_t + a u_x = 0 with periodic boundaries, advanced with the
Lax-Wendroff scheme u_i^{n+1} = u_i - (nu/2)(u_{i+1}-u_{i-1}) + (nu^2/2)(u_{i+1}-2u_i+u_{i-1}),
nu = a dt/dx, neighbours via np.roll. Also tracks total mass and max |u|."""
import numpy as np

NAME = "lax_wendroff"
LOOPS = {"steps": 200}
N = {"small": 1_000, "medium": 1_000_000}


def make_inputs(size, loop_scale=1):
    n = N[size]
    x = np.linspace(0, 1, n, endpoint=False)
    # square wave + sine
    u0 = np.where((x > 0.2) & (x < 0.4), 1.0, 0.0) + 0.3 * np.sin(4 * np.pi * x)
    steps = int(LOOPS["steps"] * loop_scale)
    return (u0, 0.8, steps)


def run(u0, nu, steps):
    u = u0.copy()
    mass = np.empty(steps)
    umax = np.empty(steps)
    for n in range(steps):
        up = np.roll(u, -1)
        um = np.roll(u, 1)
        u = u - 0.5 * nu * (up - um) + 0.5 * nu ** 2 * (up - 2 * u + um)
        mass[n] = u.sum()
        umax[n] = np.abs(u).max()
    return u, mass, umax
