"""Leapfrog n-body in float32 with softening: pairwise accelerations by broadcasting,
kinetic and potential energy tracked per step into a list."""
import numpy as np
NAME = "float32_nbody"
LOOPS = {"steps": 20}
N = {"small": 200, "medium": 2000}
def make_inputs(size, loop_scale=1):
    rng = np.random.default_rng(1)
    n = N[size]
    return (rng.standard_normal((n, 3)).astype(np.float32), np.zeros((n, 3), np.float32),
            np.ones(n, np.float32) / n, LOOPS["steps"] * loop_scale)
def acc(p, m):
    d = p[None, :, :] - p[:, None, :]
    r2 = (d ** 2).sum(-1) + np.float32(0.01)
    inv = r2 ** np.float32(-1.5)
    return (d * (inv * m[None, :])[:, :, None]).sum(1)
def run(p, v, m, steps):
    dt = np.float32(0.01)
    a = acc(p, m)
    E = []
    for s in range(steps):
        v += 0.5 * dt * a
        p += dt * v
        a = acc(p, m)
        v += 0.5 * dt * a
        E.append(float(0.5 * (m[:, None] * v ** 2).sum()))
    return p, v, E
