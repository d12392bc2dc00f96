"""1-D inviscid Burgers equation u_t + u u_x = 0, first-order upwind, written the way the
classic CFD lessons write it: a time loop around a Python loop over the grid points,
u_i <- u_i - u_i dt/dx (u_i - u_{i-1}) on a copy of the previous step."""
import numpy as np

NAME = "burgers_upwind"
LOOPS = {"nt": 25}
N = {"small": 81, "medium": 401}


def make_inputs(size, loop_scale=1):
    nx = N[size]
    u = np.ones(nx)
    u[nx // 4: nx // 2] = 2.0                  # the hat function of the lessons
    dx = 2.0 / (nx - 1)
    return u, 0.2 * dx, dx, LOOPS["nt"] * loop_scale


def run(u, dt, dx, nt):
    nx = u.shape[0]
    for n in range(nt):
        un = u.copy()
        for i in range(1, nx):
            u[i] = un[i] - un[i] * dt / dx * (un[i] - un[i - 1])
    return u
