"""Gaussian elimination without pivoting, the textbook double loop with a scalar factor
per row, then back substitution with a dot per row."""
import numpy as np
NAME = "doolittle_scalar"
LOOPS = {}
N = {"small": 60, "medium": 300}
def make_inputs(size, loop_scale=1):
    n = N[size]
    rng = np.random.default_rng(2)
    A = rng.random((n, n)) + n * np.eye(n)
    return A, rng.random(n)
def run(A, b):
    n = len(b)
    A = A.copy(); b = b.copy()
    for k in range(n - 1):
        for i in range(k + 1, n):
            factor = A[i, k] / A[k, k]
            A[i, k:] -= factor * A[k, k:]
            b[i] -= factor * b[k]
    x = np.zeros(n)
    for i in range(n - 1, -1, -1):
        x[i] = (b[i] - np.dot(A[i, i + 1:], x[i + 1:])) / A[i, i]
    return x
