"""Householder QR: for each column k, v = x + sign(x_0) ||x|| e_1 (x = R[k:, k]), v /= ||v||,
then R[k:, k:] -= 2 v (v^T R[k:, k:]) and Q[:, k:] -= 2 (Q[:, k:] v) v^T."""
import numpy as np

NAME = "householder_qr"
LOOPS = {}
SHAPE = {"small": (300, 100), "medium": (2000, 500)}


def make_inputs(size, loop_scale=1):
    return (np.random.default_rng(0).standard_normal(SHAPE[size]),)


def run(A):
    m, n = A.shape
    R = A.copy()
    Q = np.eye(m)
    for k in range(n):
        x = R[k:, k]
        v = x.copy()
        v[0] += np.copysign(np.linalg.norm(x), x[0])
        v /= np.linalg.norm(v)
        R[k:, k:] -= 2.0 * np.outer(v, v @ R[k:, k:])
        Q[:, k:] -= 2.0 * np.outer(Q[:, k:] @ v, v)
    return Q, R
