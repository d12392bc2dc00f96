"""Least-squares polynomial fit via modified Gram-Schmidt QR of the Vandermonde
matrix: for each column k, r_kk = ||q_k||, q_k /= r_kk, and subtract the projection
onto q_k from all remaining columns at once; then solve R c = Q^T y by back
substitution. Returns the coefficients and the residual norm."""
import numpy as np

NAME = "mgs_lstsq"
LOOPS = {"degree": 12}
N = {"small": 2_000, "medium": 500_000}


def make_inputs(size, loop_scale=1):
    m = N[size]
    rng = np.random.default_rng(0)
    t = np.linspace(-1, 1, m)
    y = np.cos(3 * t) + 0.1 * t ** 3 + 0.01 * rng.standard_normal(m)
    deg = int(LOOPS["degree"] * loop_scale)
    return (t, y, deg)


def run(t, y, deg):
    A = np.vander(t, deg + 1, increasing=True)
    m, n = A.shape
    Q = A.copy()
    R = np.zeros((n, n))
    for k in range(n):
        R[k, k] = np.linalg.norm(Q[:, k])
        Q[:, k] /= R[k, k]
        R[k, k + 1:] = Q[:, k] @ Q[:, k + 1:]
        Q[:, k + 1:] -= np.outer(Q[:, k], R[k, k + 1:])
    z = Q.T @ y
    c = np.zeros(n)
    for i in range(n - 1, -1, -1):
        c[i] = (z[i] - R[i, i + 1:] @ c[i + 1:]) / R[i, i]
    resid = np.linalg.norm(A @ c - y)
    return c, resid
