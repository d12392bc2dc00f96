"""Lanczos tridiagonalisation of a symmetric matrix with full reorthogonalisation against the
stored basis, then the Ritz values as the eigenvalues of the m x m tridiagonal T
(Golub & Van Loan, Saad)."""
import numpy as np

NAME = "lanczos"
LOOPS = {"m": 40}
N = {"small": 300, "medium": 1000}


def _sym(n, seed):
    a = np.random.default_rng(seed).standard_normal((n, n))
    return (a + a.T) / 2 + n * np.diag(np.arange(n) / n)


def make_inputs(size, loop_scale=1):
    n = N[size]
    return _sym(n, 10), np.random.default_rng(11).standard_normal(n), LOOPS["m"] * loop_scale


def run(A, v0, m):
    n = A.shape[0]
    V = np.zeros((n, m))
    alpha = np.zeros(m)
    beta = np.zeros(m - 1)
    v = v0 / np.linalg.norm(v0)
    V[:, 0] = v
    w = A @ v
    alpha[0] = w @ v
    w = w - alpha[0] * v
    for j in range(1, m):
        beta[j - 1] = np.linalg.norm(w)
        v = w / beta[j - 1]
        v = v - V[:, :j] @ (V[:, :j].T @ v)     # full reorthogonalisation
        v /= np.linalg.norm(v)
        V[:, j] = v
        w = A @ v - beta[j - 1] * V[:, j - 1]
        alpha[j] = w @ v
        w = w - alpha[j] * v
    T = np.diag(alpha) + np.diag(beta, 1) + np.diag(beta, -1)
    return np.linalg.eigvalsh(T)
