"""2-D heat equation u_t = alpha (u_xx + u_yy) on a plate, FTCS explicit scheme with a
fixed hot spot (Dirichlet source) and insulated (zero-flux Neumann) edges imposed the
way lecture notes do: after each step copy the first interior row/column onto the
boundary. Tracks total heat and the max temperature per step."""
import numpy as np

NAME = "heat2d_neumann"
LOOPS = {"steps": 150}
N = {"small": 96, "medium": 1024}


def make_inputs(size, loop_scale=1):
    n = N[size]
    u0 = np.zeros((n, n))
    c = n // 2
    r = max(n // 16, 2)
    u0[c - r:c + r, c - r:c + r] = 100.0
    steps = int(LOOPS["steps"] * loop_scale)
    return (u0, 0.2, steps)


def run(u0, r, steps):
    u = u0.copy()
    n = u.shape[0]
    c = n // 2
    h = max(n // 16, 2)
    total = np.zeros(steps)
    umax = np.zeros(steps)
    for k in range(steps):
        un = u.copy()
        u[1:-1, 1:-1] = un[1:-1, 1:-1] + r * (
            un[2:, 1:-1] + un[:-2, 1:-1] + un[1:-1, 2:] + un[1:-1, :-2]
            - 4.0 * un[1:-1, 1:-1])
        # insulated edges
        u[0, :] = u[1, :]
        u[-1, :] = u[-2, :]
        u[:, 0] = u[:, 1]
        u[:, -1] = u[:, -2]
        # the heater stays on
        u[c - h // 2:c + h // 2, c - h // 2:c + h // 2] = 100.0
        total[k] = u.sum()
        umax[k] = u.max()
    return u, total, umax
