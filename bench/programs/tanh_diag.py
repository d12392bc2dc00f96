"""The accumulation loop of Numba's first example: t = sum_i tanh(a_ii), by a Python loop
over the diagonal, then a + t."""
import numpy as np

NAME = "tanh_diag"
LOOPS = {}
N = {"small": 200, "medium": 3000}


def make_inputs(size, loop_scale=1):
    return (np.arange(N[size] ** 2, dtype=np.float64).reshape(N[size], N[size]) / N[size] ** 2,)


def run(a):
    trace = 0.0
    for i in range(a.shape[0]):
        trace += np.tanh(a[i, i])
    return a + trace
