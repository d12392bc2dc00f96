"""Doolittle LU factorization without pivoting, A = L U with unit-diagonal L,
computed with an outer loop over k: U[k, k:] = A[k, k:] - L[k, :k] @ U[:k, k:],
L[k+1:, k] = (A[k+1:, k] - L[k+1:, :k] @ U[:k, k]) / U[k, k];
then solves A x = b by forward and back substitution loops."""
import numpy as np

NAME = "doolittle_lu"
LOOPS = {}
N = {"small": 120, "medium": 1_500}


def make_inputs(size, loop_scale=1):
    n = N[size]
    rng = np.random.default_rng(0)
    A = rng.random((n, n)) + n * np.eye(n)   # diagonally dominant, no pivoting needed
    b = rng.random(n)
    return (A, b)


def run(A, b):
    n = A.shape[0]
    L = np.eye(n)
    U = np.zeros((n, n))
    for k in range(n):
        U[k, k:] = A[k, k:] - L[k, :k] @ U[:k, k:]
        L[k + 1:, k] = (A[k + 1:, k] - L[k + 1:, :k] @ U[:k, k]) / U[k, k]
    # forward substitution L y = b
    y = np.zeros(n)
    for i in range(n):
        y[i] = b[i] - np.dot(L[i, :i], y[:i])
    # back substitution U x = y
    x = np.zeros(n)
    for i in range(n - 1, -1, -1):
        x[i] = (y[i] - np.dot(U[i, i + 1:], x[i + 1:])) / U[i, i]
    return L, U, x
