"""Chebyshev semi-iteration for an SPD system with eigenvalue bounds from Gershgorin discs,
using the three-term recurrence of Saad's Iterative Methods (Algorithm 12.1)."""
import numpy as np

from program_inputs import diagonally_dominant

NAME = "chebyshev_iteration"
LOOPS = {"iters": 60}
N = {"small": 200, "medium": 700}


def make_inputs(size, loop_scale=1):
    n = N[size]
    D = diagonally_dominant(n, 16)
    return D @ D.T, np.random.default_rng(17).standard_normal(n), LOOPS["iters"] * loop_scale


def run(A, b, iters):
    """Chebyshev semi-iteration with eigenvalue bounds from Gershgorin."""
    d = np.diag(A)
    radius = np.sum(np.abs(A), axis=1) - np.abs(d)
    lmax = np.max(d + radius)
    lmin = max(np.min(d - radius), 1e-2)
    theta = (lmax + lmin) / 2
    delta = (lmax - lmin) / 2
    x = np.zeros_like(b)
    r = b - A @ x
    sigma = theta / delta
    rho = 1 / sigma
    dvec = r / theta
    for k in range(iters):
        x = x + dvec
        r = r - A @ dvec
        rho_new = 1 / (2 * sigma - rho)
        dvec = rho_new * rho * dvec + 2 * rho_new / delta * r
        rho = rho_new
    return x, np.linalg.norm(r)
