"""Gaussian elimination with partial pivoting, PA = LU in place: at step k swap in the row
with the largest |a_ik| (i >= k), store the multipliers, rank-1 update the trailing block
(broadcasting a column against a row). Returns the packed LU and the permutation."""
import numpy as np

NAME = "lu_pivot"
LOOPS = {}
N = {"small": 150, "medium": 800}


def make_inputs(size, loop_scale=1):
    n = N[size]
    return (np.random.default_rng(0).standard_normal((n, n)),)


def run(A):
    n = A.shape[0]
    perm = np.arange(n)
    for k in range(n - 1):
        p = k + np.argmax(np.abs(A[k:, k]))
        if p != k:
            A[[k, p]] = A[[p, k]]
            perm[[k, p]] = perm[[p, k]]
        A[k + 1:, k] = A[k + 1:, k] / A[k, k]
        A[k + 1:, k + 1:] = A[k + 1:, k + 1:] - A[k + 1:, k, None] * A[None, k, k + 1:]
    return A, perm
