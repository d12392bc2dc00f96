"""Thomas algorithm (tridiagonal LU without pivoting) applied to a batch of independent
systems at once: the forward sweep and back substitution loop over rows, vectorized
across the batch. Used for implicit (backward Euler) diffusion of many 1-D profiles
with different diffusivities over several time steps."""
import numpy as np

NAME = "thomas_batch"
LOOPS = {"steps": 5}
N = {"small": 64, "medium": 4096}


def make_inputs(size, loop_scale=1):
    nsys = N[size]
    n = 200
    rng = np.random.default_rng(17)
    D = rng.uniform(0.1, 2.0, nsys)
    u0 = rng.random((nsys, n))
    return (u0, D, 0.5, int(LOOPS["steps"] * loop_scale))


def thomas(a, b, c, d):
    # a: sub, b: diag, c: super, d: rhs; each (n, batch)
    n = d.shape[0]
    cp = np.empty_like(d)
    dp = np.empty_like(d)
    cp[0] = c[0] / b[0]
    dp[0] = d[0] / b[0]
    for i in range(1, n):
        m = b[i] - a[i] * cp[i - 1]
        cp[i] = c[i] / m
        dp[i] = (d[i] - a[i] * dp[i - 1]) / m
    x = np.empty_like(d)
    x[-1] = dp[-1]
    for i in range(n - 2, -1, -1):
        x[i] = dp[i] - cp[i] * x[i + 1]
    return x


def run(u0, D, dt, steps):
    nsys, n = u0.shape
    r = D * dt * (n - 1) ** 2 / 1e4
    a = np.tile(-r, (n, 1))
    c = np.tile(-r, (n, 1))
    b = np.tile(1 + 2 * r, (n, 1))
    # zero-flux ends
    b[0] = 1 + r
    b[-1] = 1 + r
    a[0] = 0.0
    c[-1] = 0.0
    u = u0.T.copy()
    for s in range(steps):
        u = thomas(a, b, c, u)
    return u.T, u.sum(axis=0)
