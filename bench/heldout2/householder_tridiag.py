"""Householder reduction of a symmetric matrix to tridiagonal form (as in Golub & Van
Loan / Numerical Recipes tred2, written with vectors): for each column k build the
reflector v from A[k+1:, k], apply A <- H A H through the rank-2 update
A -= v w^T + w v^T, and accumulate Q. Returns the diagonal, off-diagonal and Q."""
import numpy as np

NAME = "householder_tridiag"
LOOPS = {}
N = {"small": 120, "medium": 800}


def make_inputs(size, loop_scale=1):
    n = N[size]
    rng = np.random.default_rng(21)
    B = rng.standard_normal((n, n))
    return (0.5 * (B + B.T),)


def run(S):
    A = S.copy()
    n = A.shape[0]
    Q = np.eye(n)
    for k in range(n - 2):
        x = A[k + 1:, k]
        alpha = -np.sign(x[0]) * np.linalg.norm(x) if x[0] != 0 else -np.linalg.norm(x)
        v = x.copy()
        v[0] -= alpha
        vnorm = np.linalg.norm(v)
        if vnorm < 1e-14:
            continue
        v /= vnorm
        # A22 <- (I - 2vv^T) A22 (I - 2vv^T)
        A22 = A[k + 1:, k + 1:]
        p = 2.0 * A22 @ v
        K = v @ p
        w = p - K * v
        A[k + 1:, k + 1:] = A22 - np.outer(v, w) - np.outer(w, v)
        A[k + 1:, k] = 0.0
        A[k, k + 1:] = 0.0
        A[k + 1, k] = alpha
        A[k, k + 1] = alpha
        Q[:, k + 1:] -= 2.0 * np.outer(Q[:, k + 1:] @ v, v)
    d = np.diag(A).copy()
    e = np.diag(A, 1).copy()
    return d, e, Q
