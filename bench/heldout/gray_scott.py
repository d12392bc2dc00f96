"""Gray-Scott reaction-diffusion on a periodic 2-D grid:
u_t = Du lap(u) - u v^2 + F (1 - u),  v_t = Dv lap(v) + u v^2 - (F + k) v,
with the 5-point Laplacian built from np.roll and forward Euler in time."""
import numpy as np

NAME = "gray_scott"
LOOPS = {"steps": 40}
N = {"small": 64, "medium": 1024}


def make_inputs(size, loop_scale=1):
    n = N[size]
    rng = np.random.default_rng(0)
    U = np.ones((n, n))
    V = np.zeros((n, n))
    r = max(n // 10, 2)
    c = n // 2
    U[c - r:c + r, c - r:c + r] = 0.50
    V[c - r:c + r, c - r:c + r] = 0.25
    U += 0.05 * rng.random((n, n))
    V += 0.05 * rng.random((n, n))
    steps = int(LOOPS["steps"] * loop_scale)
    return (U, V, 0.16, 0.08, 0.035, 0.065, steps)


def laplacian(Z):
    return (np.roll(Z, 1, axis=0) + np.roll(Z, -1, axis=0)
            + np.roll(Z, 1, axis=1) + np.roll(Z, -1, axis=1) - 4 * Z)


def run(U, V, Du, Dv, F, k, steps):
    U = U.copy()
    V = V.copy()
    for t in range(steps):
        uvv = U * V * V
        U += Du * laplacian(U) - uvv + F * (1 - U)
        V += Dv * laplacian(V) + uvv - (F + k) * V
    return U, V, float(V.mean())
