"""Unshifted QR algorithm for the eigenvalues of a symmetric matrix: A_{k+1} = R_k Q_k from
A_k = Q_k R_k, accumulating the eigenvector basis (Golub & Van Loan, Trefethen & Bau)."""
import numpy as np

NAME = "qr_algorithm"
LOOPS = {"iters": 80}
N = {"small": 40, "medium": 100}


def _sym(n, seed):
    a = np.random.default_rng(seed).standard_normal((n, n))
    return (a + a.T) / 2 + n * np.diag(np.arange(n) / n)


def make_inputs(size, loop_scale=1):
    return _sym(N[size], 9), LOOPS["iters"] * loop_scale


def run(A, iters):
    Ak = A.copy()
    Q_total = np.eye(A.shape[0])
    for _ in range(iters):
        Q, R = np.linalg.qr(Ak)
        Ak = R @ Q
        Q_total = Q_total @ Q
    return np.sort(np.diag(Ak)), np.abs(Q_total)
