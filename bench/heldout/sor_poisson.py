"""Red-black successive over-relaxation for the 2-D Poisson problem
-lap(phi) = f on the unit square with phi = 0 on the boundary.
Each half sweep updates one colour with boolean masks:
phi <- (1-w) phi + w/4 (neighbours + h^2 f); iterate while ||residual||_2 > tol."""
import numpy as np

NAME = "sor_poisson"
LOOPS = {"max_iter": 500}
N = {"small": 24, "medium": 512}


def make_inputs(size, loop_scale=1):
    n = N[size]
    h = 1.0 / (n + 1)
    x = np.linspace(h, 1 - h, n)
    X, Y = np.meshgrid(x, x, indexing="ij")
    f = 2 * np.pi ** 2 * np.sin(np.pi * X) * np.sin(np.pi * Y)
    max_iter = int(LOOPS["max_iter"] * loop_scale)
    omega = 2.0 / (1.0 + np.sin(np.pi * h))
    return (f, h, omega, 1e-6, max_iter)


def run(f, h, omega, tol, max_iter):
    n = f.shape[0]
    phi = np.zeros((n + 2, n + 2))
    I, J = np.indices((n, n))
    red = (I + J) % 2 == 0
    black = ~red
    h2f = h * h * f
    it = 0
    res = np.inf
    while res > tol and it < max_iter:
        for mask in (red, black):
            nb = phi[:-2, 1:-1] + phi[2:, 1:-1] + phi[1:-1, :-2] + phi[1:-1, 2:]
            inner = phi[1:-1, 1:-1]
            gs = 0.25 * (nb + h2f)
            inner[mask] = (1 - omega) * inner[mask] + omega * gs[mask]
        r = h2f + (phi[:-2, 1:-1] + phi[2:, 1:-1] + phi[1:-1, :-2] + phi[1:-1, 2:]
                   - 4 * phi[1:-1, 1:-1])
        res = np.linalg.norm(r) / h
        it += 1
    return phi, it, res
