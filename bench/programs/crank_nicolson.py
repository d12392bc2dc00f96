"""1-D heat equation u_t = alpha u_xx by Crank-Nicolson: the average of the explicit and
implicit second differences gives a tridiagonal system per step,
-r/2 u_{i-1}' + (1+r) u_i' - r/2 u_{i+1}' = r/2 u_{i-1} + (1-r) u_i + r/2 u_{i+1},  r = alpha dt/dx^2,
solved with the Thomas algorithm (forward elimination, back substitution) written as
plain Python loops, as in numerical-methods course notes. Dirichlet ends stay fixed."""
import numpy as np

NAME = "crank_nicolson"
LOOPS = {"nsteps": 25}
N = {"small": 82, "medium": 1002}


def thomas(a, b, c, d):
    """Tridiagonal solve (Thomas algorithm), a = sub, b = main, c = super diagonal."""
    n = len(d)
    cp = np.zeros(n)
    dp = np.zeros(n)
    cp[0] = c[0] / b[0]
    dp[0] = d[0] / b[0]
    for i in range(1, n):
        m = b[i] - a[i] * cp[i - 1]
        cp[i] = c[i] / m
        dp[i] = (d[i] - a[i] * dp[i - 1]) / m
    x = np.zeros(n)
    x[-1] = dp[-1]
    for i in range(n - 2, -1, -1):
        x[i] = dp[i] - cp[i] * x[i + 1]
    return x


def make_inputs(size, loop_scale=1):
    n = N[size]
    x = np.linspace(0, 1, n)
    u0 = np.sin(np.pi * x) + 0.3 * np.sin(5 * np.pi * x)
    return u0, 1.0, 1 / (n - 1), 2e-4, LOOPS["nsteps"] * loop_scale


def run(u0, alpha, dx, dt, nsteps):
    u = u0.copy()
    n = len(u) - 2
    r = alpha * dt / dx**2
    a = np.full(n, -r / 2)
    b = np.full(n, 1 + r)
    c = np.full(n, -r / 2)
    for step in range(nsteps):
        rhs = r / 2 * u[:-2] + (1 - r) * u[1:-1] + r / 2 * u[2:]
        u[1:-1] = thomas(a, b, c, rhs)
    return u
