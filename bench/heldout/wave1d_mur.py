"""1-D wave equation u_tt = c^2 u_xx on [0,1] solved with the standard
second-order leapfrog stencil u^{n+1} = 2u^n - u^{n-1} + C^2 (u_{i+1} - 2u_i + u_{i-1}),
C = c dt/dx, and first-order Mur absorbing boundaries
u_0^{n+1} = u_1^n + (C-1)/(C+1) (u_1^{n+1} - u_0^n) at both ends. Returns the final field
and the energy history."""
import numpy as np

NAME = "wave1d_mur"
LOOPS = {"steps": 200}
N = {"small": 2_000, "medium": 400_000}


def make_inputs(size, loop_scale=1):
    n = N[size]
    x = np.linspace(0.0, 1.0, n)
    # gaussian pulse plus a bit of noise
    rng = np.random.default_rng(0)
    u0 = np.exp(-((x - 0.3) / 0.02) ** 2) + 0.01 * rng.standard_normal(n)
    c = 1.0
    dx = x[1] - x[0]
    dt = 0.9 * dx / c
    steps = int(LOOPS["steps"] * loop_scale)
    return (u0, c, dx, dt, steps)


def run(u0, c, dx, dt, steps):
    C = c * dt / dx
    C2 = C * C
    k = (C - 1.0) / (C + 1.0)
    u_prev = u0.copy()
    u = u0.copy()
    # first step with zero initial velocity
    u[1:-1] = u0[1:-1] + 0.5 * C2 * (u0[2:] - 2 * u0[1:-1] + u0[:-2])
    energy = np.zeros(steps)
    for t in range(steps):
        u_new = np.empty_like(u)
        u_new[1:-1] = 2 * u[1:-1] - u_prev[1:-1] + C2 * (u[2:] - 2 * u[1:-1] + u[:-2])
        # Mur absorbing boundaries
        u_new[0] = u[1] + k * (u_new[1] - u[0])
        u_new[-1] = u[-2] + k * (u_new[-2] - u[-1])
        ut = (u_new - u_prev) / (2 * dt)
        ux = np.diff(u) / dx
        energy[t] = 0.5 * dx * (np.sum(ut ** 2) + c ** 2 * np.sum(ux ** 2))
        u_prev, u = u, u_new
    return u, energy
