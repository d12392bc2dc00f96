"""Cholesky-Banachiewicz factorization A = L L^T computed row by row:
L[i, j] = (A[i, j] - sum_k L[i,k] L[j,k]) / L[j, j] for j < i, and
L[i, i] = sqrt(A[i, i] - sum_k L[i,k]^2). The off-diagonal row is obtained by a
triangular solve written as a small inner loop. Returns L and log det A."""
import numpy as np

NAME = "cholesky_rows"
LOOPS = {}
N = {"small": 60, "medium": 600}


def make_inputs(size, loop_scale=1):
    n = N[size]
    rng = np.random.default_rng(0)
    X = rng.standard_normal((2 * n, n))
    A = X.T @ X / (2 * n) + 0.1 * np.eye(n)
    return (A,)


def run(A):
    n = A.shape[0]
    L = np.zeros_like(A)
    for i in range(n):
        for j in range(i):
            s = np.dot(L[i, :j], L[j, :j])
            L[i, j] = (A[i, j] - s) / L[j, j]
        d = A[i, i] - np.sum(L[i, :i] ** 2)
        if d <= 0:
            raise ValueError("matrix not positive definite")
        L[i, i] = np.sqrt(d)
    logdet = 2.0 * np.sum(np.log(np.diag(L)))
    return L, logdet
