"""Fermi-Pasta-Ulam-Tsingou alpha chain with fixed ends, integrated with velocity Verlet.
The energy in the lowest normal modes is measured every few steps by projecting onto
the sine modes with a matrix product (the classic FPUT recurrence experiment)."""
import numpy as np

NAME = "fpu_chain"
LOOPS = {"steps": 400}
N = {"small": 64, "medium": 4096}


def make_inputs(size, loop_scale=1):
    n = N[size]
    j = np.arange(1, n + 1)
    x0 = 4.0 * np.sin(np.pi * j / (n + 1))
    v0 = np.zeros(n)
    return (x0, v0, 0.25, 0.1, int(LOOPS["steps"] * loop_scale))


def force(x, alpha):
    xp = np.concatenate(([0.0], x, [0.0]))
    dr = xp[2:] - xp[1:-1]
    dl = xp[1:-1] - xp[:-2]
    return (dr - dl) + alpha * (dr ** 2 - dl ** 2)


def run(x0, v0, alpha, dt, steps):
    n = x0.size
    j = np.arange(1, n + 1)
    k = np.arange(1, 5)
    S = np.sqrt(2.0 / (n + 1)) * np.sin(np.pi * np.outer(k, j) / (n + 1))
    wk = 2 * np.sin(np.pi * k / (2 * (n + 1)))
    x = x0.copy()
    v = v0.copy()
    a = force(x, alpha)
    E = []
    for s in range(steps):
        v += 0.5 * dt * a
        x += dt * v
        a = force(x, alpha)
        v += 0.5 * dt * a
        if s % 5 == 0:
            Q = S @ x
            P = S @ v
            E.append(0.5 * (P ** 2 + (wk * Q) ** 2))
    return x, v, np.array(E)
