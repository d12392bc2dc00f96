"""Modified Gram-Schmidt QR of a tall matrix: normalize column k, then remove its component
from every later column: R_kj = q_k . a_j,  a_j -= R_kj q_k."""
import numpy as np

NAME = "gram_schmidt"
LOOPS = {}
SHAPE = {"small": (400, 100), "medium": (4000, 400)}


def make_inputs(size, loop_scale=1):
    return (np.random.default_rng(0).standard_normal(SHAPE[size]),)


def run(A):
    m, n = A.shape
    Q = A.copy()
    R = np.zeros((n, n))
    for k in range(n):
        R[k, k] = np.linalg.norm(Q[:, k])
        Q[:, k] /= R[k, k]
        R[k, k + 1:] = Q[:, k] @ Q[:, k + 1:]
        Q[:, k + 1:] -= np.outer(Q[:, k], R[k, k + 1:])
    return Q, R
