"""Matrix product written as rank-one row updates, C[i, :] += A[i, k] * B[k, :], over
Python loops on i and k: how a textbook states C = A B before reaching for np.dot."""
import numpy as np

NAME = "row_update_matmul"
LOOPS = {}
N = {"small": 48, "medium": 200}


def make_inputs(size, loop_scale=1):
    n = N[size]
    rng = np.random.default_rng(0)
    return rng.random((n, n)), rng.random((n, n))


def run(A, B):
    n = A.shape[0]
    C = np.zeros((n, B.shape[1]))
    for i in range(n):
        for k in range(n):
            C[i, :] += A[i, k] * B[k, :]
    return C
