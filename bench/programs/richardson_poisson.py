"""Matrix-free Richardson iteration u <- u + omega (b - A u) for the 5-point Laplacian with
zero Dirichlet boundary, A applied through shifted slice updates; keeps the residual norm
history."""
import numpy as np

NAME = "richardson_poisson"
LOOPS = {"iters": 150}
N = {"small": 64, "medium": 256}


def make_inputs(size, loop_scale=1):
    n = N[size]
    return np.random.default_rng(14).standard_normal((n, n)), 0.2, LOOPS["iters"] * loop_scale


def run(bvec, omega, iters):
    """Matrix-free Richardson iteration for the 5-point Laplacian, residual history."""
    def apply_A(u):
        Au = 4 * u
        Au[1:, :] -= u[:-1, :]
        Au[:-1, :] -= u[1:, :]
        Au[:, 1:] -= u[:, :-1]
        Au[:, :-1] -= u[:, 1:]
        return Au
    u = np.zeros_like(bvec)
    res = []
    for k in range(iters):
        r = bvec - apply_A(u)
        u = u + omega * r
        res.append(np.linalg.norm(r))
    return u, np.array(res)
