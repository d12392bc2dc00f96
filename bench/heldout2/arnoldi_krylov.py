"""Arnoldi iteration with modified Gram-Schmidt, building an orthonormal Krylov basis Q
and the upper Hessenberg H (Trefethen & Bau, Algorithm 33.1), with a breakdown check.
The Ritz values come from np.linalg.eigvals of the square part of H."""
import numpy as np

NAME = "arnoldi_krylov"
LOOPS = {"m": 30}
N = {"small": 300, "medium": 3000}


def make_inputs(size, loop_scale=1):
    n = N[size]
    rng = np.random.default_rng(8)
    A = rng.standard_normal((n, n)) / np.sqrt(n) + np.diag(np.linspace(1, 10, n))
    b = rng.standard_normal(n)
    return (A, b, int(LOOPS["m"] * loop_scale))


def run(A, b, m):
    n = A.shape[0]
    m = min(m, n)
    Q = np.zeros((n, m + 1))
    H = np.zeros((m + 1, m))
    Q[:, 0] = b / np.linalg.norm(b)
    k_end = m
    for k in range(m):
        v = A @ Q[:, k]
        for j in range(k + 1):
            H[j, k] = np.dot(Q[:, j], v)
            v = v - H[j, k] * Q[:, j]
        H[k + 1, k] = np.linalg.norm(v)
        if H[k + 1, k] < 1e-12:
            k_end = k + 1
            break
        Q[:, k + 1] = v / H[k + 1, k]
    ritz = np.linalg.eigvals(H[:k_end, :k_end])
    ritz = ritz[np.argsort(-np.abs(ritz))]
    orth = np.abs(Q[:, :k_end].T @ Q[:, :k_end] - np.eye(k_end)).max()
    return H, Q, np.abs(ritz[:5]), orth
