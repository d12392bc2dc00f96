"""Doolittle LU factorization without pivoting (A is diagonally dominant), in place:
for each k, the multipliers l_ik = a_ik / a_kk go below the diagonal and the trailing block
gets the rank-1 update A[k+1:, k+1:] -= l u^T."""
import numpy as np

NAME = "lu"
LOOPS = {}
N = {"small": 200, "medium": 1000}


def make_inputs(size, loop_scale=1):
    n = N[size]
    A = np.random.default_rng(0).random((n, n))
    A += n * np.eye(n)
    return (A,)


def run(A):
    n = A.shape[0]
    for k in range(n - 1):
        A[k + 1:, k] /= A[k, k]
        A[k + 1:, k + 1:] -= np.outer(A[k + 1:, k], A[k, k + 1:])
    return A
