"""Solve L U x = b by forward substitution (y_i = (b_i - L[i, :i] . y[:i]) / L_ii)
then back substitution (x_i = (y_i - U[i, i+1:] . x[i+1:]) / U_ii)."""
import numpy as np

NAME = "triangular_solve"
LOOPS = {}
N = {"small": 300, "medium": 2000}


def make_inputs(size, loop_scale=1):
    n = N[size]
    rng = np.random.default_rng(0)
    L = np.tril(rng.random((n, n))) + n * np.eye(n)
    U = np.triu(rng.random((n, n))) + n * np.eye(n)
    return L, U, rng.standard_normal(n)


def run(L, U, b):
    n = b.shape[0]
    y = np.zeros_like(b)
    for i in range(n):
        y[i] = (b[i] - L[i, :i] @ y[:i]) / L[i, i]
    x = np.zeros_like(b)
    for i in range(n - 1, -1, -1):
        x[i] = (y[i] - U[i, i + 1:] @ x[i + 1:]) / U[i, i]
    return x
