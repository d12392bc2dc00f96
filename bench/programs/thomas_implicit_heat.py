"""Backward-Euler heat equation in 1-d: each time step solves the tridiagonal system
(1 + 2r) u_i - r u_{i-1} - r u_{i+1} = u_i^old by the Thomas algorithm, written as
textbooks do: a forward sweep and a back substitution over Python loops of scalars,
inside the time loop, with the work arrays made each step."""
import numpy as np

NAME = "thomas_implicit_heat"
LOOPS = {"steps": 20}
N = {"small": 200, "medium": 20000}


def make_inputs(size, loop_scale=1):
    x = np.linspace(0.0, 1.0, N[size])
    return np.exp(-100 * (x - 0.5) ** 2), LOOPS["steps"] * loop_scale, 0.4


def run(u, steps, r):
    n = u.size
    a = np.full(n, -r)
    b = np.full(n, 1 + 2 * r)
    c = np.full(n, -r)
    for _ in range(steps):
        d = u.copy()
        cp = np.empty(n)
        dp = np.empty(n)
        cp[0] = c[0] / b[0]
        dp[0] = d[0] / b[0]
        for i in range(1, n):
            m = b[i] - a[i] * cp[i - 1]
            cp[i] = c[i] / m
            dp[i] = (d[i] - a[i] * dp[i - 1]) / m
        u[-1] = dp[-1]
        for i in range(n - 2, -1, -1):
            u[i] = dp[i] - cp[i] * u[i + 1]
    return u
