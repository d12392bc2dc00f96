"""1-D dam break for the shallow-water equations h_t + (hu)_x = 0,
(hu)_t + (hu^2 + g h^2/2)_x = 0 with the Lax-Friedrichs scheme (average of neighbours minus
a centred flux difference), a CFL-adaptive time step dt = 0.4 dx / max(|u| + sqrt(g h))
and reflecting ends, run while t < t_end (LeVeque-style finite-volume textbook example)."""
import numpy as np

NAME = "shallow_water_dambreak"
LOOPS = {"t_end": 0.1}
N = {"small": 400, "medium": 1600}


def make_inputs(size, loop_scale=1):
    return N[size], LOOPS["t_end"] * loop_scale, 9.81


def run(nx, t_end, g):
    """1-D shallow water, Lax-Friedrichs, CFL-adaptive dt (while t < t_end)."""
    x = np.linspace(-1, 1, nx)
    dx = x[1] - x[0]
    h = np.where(x < 0, 2.0, 1.0)
    hu = np.zeros(nx)
    t = 0.0
    nsteps = 0
    while t < t_end:
        u = hu / h
        c = np.max(np.abs(u) + np.sqrt(g * h))
        dt = min(0.4 * dx / c, t_end - t)
        F1 = hu
        F2 = hu * u + 0.5 * g * h**2
        h_new = h.copy()
        hu_new = hu.copy()
        h_new[1:-1] = 0.5 * (h[2:] + h[:-2]) - dt / (2 * dx) * (F1[2:] - F1[:-2])
        hu_new[1:-1] = 0.5 * (hu[2:] + hu[:-2]) - dt / (2 * dx) * (F2[2:] - F2[:-2])
        h_new[0], h_new[-1] = h_new[1], h_new[-2]
        hu_new[0], hu_new[-1] = -hu_new[1], -hu_new[-2]
        h, hu = h_new, hu_new
        t += dt
        nsteps += 1
    return h, hu, nsteps
