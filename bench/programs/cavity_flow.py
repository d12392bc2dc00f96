"""Lid-driven cavity flow, 2-D incompressible Navier-Stokes, following step 11 of Lorena
Barba's "12 steps to Navier-Stokes": explicit upwind/central momentum update, pressure
from a Jacobi-iterated Poisson equation (nit sweeps per time step) whose source b comes
from the velocity divergence and its products; no-slip walls, lid u = 1.
(medium is 101^2, ~6x the work of 41^2: dt = 0.001 is fixed inside the program and
nu dt (1/dx^2 + 1/dy^2) reaches the explicit-diffusion limit 1/2 there.)"""
import numpy as np

NAME = "cavity_flow"
LOOPS = {"nt": 20}
N = {"small": 41, "medium": 101}


def make_inputs(size, loop_scale=1):
    return N[size], N[size], LOOPS["nt"] * loop_scale, 30


def run(nx, ny, nt, nit):
    """Barba, 12 steps to Navier-Stokes, step 11."""
    dx = 2 / (nx - 1)
    dy = 2 / (ny - 1)
    rho = 1
    nu = .1
    dt = .001
    u = np.zeros((ny, nx))
    v = np.zeros((ny, nx))
    p = np.zeros((ny, nx))
    b = np.zeros((ny, nx))
    for n in range(nt):
        un = u.copy()
        vn = v.copy()
        b[1:-1, 1:-1] = (rho * (1 / dt *
                         ((u[1:-1, 2:] - u[1:-1, 0:-2]) /
                          (2 * dx) + (v[2:, 1:-1] - v[0:-2, 1:-1]) / (2 * dy)) -
                         ((u[1:-1, 2:] - u[1:-1, 0:-2]) / (2 * dx))**2 -
                         2 * ((u[2:, 1:-1] - u[0:-2, 1:-1]) / (2 * dy) *
                              (v[1:-1, 2:] - v[1:-1, 0:-2]) / (2 * dx)) -
                         ((v[2:, 1:-1] - v[0:-2, 1:-1]) / (2 * dy))**2))
        for q in range(nit):
            pn = p.copy()
            p[1:-1, 1:-1] = (((pn[1:-1, 2:] + pn[1:-1, 0:-2]) * dy**2 +
                              (pn[2:, 1:-1] + pn[0:-2, 1:-1]) * dx**2) /
                             (2 * (dx**2 + dy**2)) -
                             dx**2 * dy**2 / (2 * (dx**2 + dy**2)) *
                             b[1:-1, 1:-1])
            p[:, -1] = p[:, -2]
            p[0, :] = p[1, :]
            p[:, 0] = p[:, 1]
            p[-1, :] = 0
        u[1:-1, 1:-1] = (un[1:-1, 1:-1] -
                         un[1:-1, 1:-1] * dt / dx *
                         (un[1:-1, 1:-1] - un[1:-1, 0:-2]) -
                         vn[1:-1, 1:-1] * dt / dy *
                         (un[1:-1, 1:-1] - un[0:-2, 1:-1]) -
                         dt / (2 * rho * dx) * (p[1:-1, 2:] - p[1:-1, 0:-2]) +
                         nu * (dt / dx**2 *
                               (un[1:-1, 2:] - 2 * un[1:-1, 1:-1] + un[1:-1, 0:-2]) +
                               dt / dy**2 *
                               (un[2:, 1:-1] - 2 * un[1:-1, 1:-1] + un[0:-2, 1:-1])))
        v[1:-1, 1:-1] = (vn[1:-1, 1:-1] -
                         un[1:-1, 1:-1] * dt / dx *
                         (vn[1:-1, 1:-1] - vn[1:-1, 0:-2]) -
                         vn[1:-1, 1:-1] * dt / dy *
                         (vn[1:-1, 1:-1] - vn[0:-2, 1:-1]) -
                         dt / (2 * rho * dy) * (p[2:, 1:-1] - p[0:-2, 1:-1]) +
                         nu * (dt / dx**2 *
                               (vn[1:-1, 2:] - 2 * vn[1:-1, 1:-1] + vn[1:-1, 0:-2]) +
                               dt / dy**2 *
                               (vn[2:, 1:-1] - 2 * vn[1:-1, 1:-1] + vn[0:-2, 1:-1])))
        u[0, :] = 0
        u[:, 0] = 0
        u[:, -1] = 0
        u[-1, :] = 1
        v[0, :] = 0
        v[-1, :] = 0
        v[:, 0] = 0
        v[:, -1] = 0
    return u, v, p
