"""Cholesky-Banachiewicz factorization A = L L^T, column by column:
L_kk = sqrt(A_kk - sum_j L_kj^2),  L_ik = (A_ik - sum_j L_ij L_kj) / L_kk for i > k."""
import numpy as np

NAME = "cholesky"
LOOPS = {}
N = {"small": 200, "medium": 1000}


def make_inputs(size, loop_scale=1):
    n = N[size]
    G = np.random.default_rng(0).standard_normal((n, n))
    return (G @ G.T + n * np.eye(n),)


def run(A):
    n = A.shape[0]
    L = np.zeros_like(A)
    for k in range(n):
        L[k, k] = np.sqrt(A[k, k] - L[k, :k] @ L[k, :k])
        L[k + 1:, k] = (A[k + 1:, k] - L[k + 1:, :k] @ L[k, :k]) / L[k, k]
    return L
