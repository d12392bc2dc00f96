"""Longest common subsequence lengths by dynamic programming, one row per symbol of a:
C[i, j] = C[i-1, j-1] + 1 if a_i == b_j else max(C[i-1, j], C[i, j-1]).
Row-vectorized: take max(C[i-1, j], match ? C[i-1, j-1] + 1 : 0), then the running
maximum along the row supplies the C[i, j-1] term."""
import numpy as np

NAME = "lcs_dp"
LOOPS = {"len_a": 100}
N = {"small": 20_000, "medium": 2_000_000}


def make_inputs(size, loop_scale=1):
    rng = np.random.default_rng(0)
    a = rng.integers(0, 4, LOOPS["len_a"] * loop_scale).astype(np.int8)  # DNA: ACGT
    b = rng.integers(0, 4, N[size]).astype(np.int8)
    return a, b


def run(a, b):
    prev = np.zeros(len(b) + 1, dtype=np.int32)
    for i in range(len(a)):
        cur = np.zeros_like(prev)
        match = a[i] == b
        cur[1:] = np.maximum(prev[1:], np.where(match, prev[:-1] + 1, 0))
        cur = np.maximum.accumulate(cur)
        prev = cur
    return prev
