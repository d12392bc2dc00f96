"""GMRES without restarts: Arnoldi with modified Gram-Schmidt builds the (m+1) x m
Hessenberg matrix, then the least-squares problem min ||beta e1 - H y|| gives
x = x0 + Q y (Saad, Iterative Methods for Sparse Linear Systems)."""
import numpy as np

from program_inputs import diagonally_dominant

NAME = "gmres_lite"
LOOPS = {"m": 25}
N = {"small": 250, "medium": 1200}


def make_inputs(size, loop_scale=1):
    n = N[size]
    return diagonally_dominant(n, 12), np.random.default_rng(13).standard_normal(n), LOOPS["m"] * loop_scale


def run(A, b, m):
    n = len(b)
    x0 = np.zeros(n)
    r0 = b - A @ x0
    beta = np.linalg.norm(r0)
    Q = np.zeros((n, m + 1))
    H = np.zeros((m + 1, m))
    Q[:, 0] = r0 / beta
    for k in range(m):
        y = A @ Q[:, k]
        for j in range(k + 1):
            H[j, k] = Q[:, j] @ y
            y = y - H[j, k] * Q[:, j]
        H[k + 1, k] = np.linalg.norm(y)
        Q[:, k + 1] = y / H[k + 1, k]
    e1 = np.zeros(m + 1)
    e1[0] = beta
    yk = np.linalg.lstsq(H, e1, rcond=None)[0]
    x = x0 + Q[:, :m] @ yk
    return x, np.linalg.norm(b - A @ x)
