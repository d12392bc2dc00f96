"""Needleman-Wunsch global alignment score of two DNA strings (match 1, mismatch -1,
gap -2), the full DP table filled by two nested Python loops over string characters, as in
bioinformatics course code. The outer loop count is len(a); N[size] is len(b)."""
import numpy as np

NAME = "needleman_wunsch"
LOOPS = {"len_a": 45}
N = {"small": 40, "medium": 480}


def _seq(n, seed):
    return np.array(list(np.random.default_rng(seed).choice(list("ACGT"), n)))


def make_inputs(size, loop_scale=1):
    return _seq(LOOPS["len_a"] * loop_scale, 25), _seq(N[size], 26)


def run(a, b):
    match, mismatch, gap = 1, -1, -2
    n, m = len(a), len(b)
    F = np.zeros((n + 1, m + 1))
    F[:, 0] = gap * np.arange(n + 1)
    F[0, :] = gap * np.arange(m + 1)
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            s = match if a[i - 1] == b[j - 1] else mismatch
            F[i, j] = max(F[i - 1, j - 1] + s, F[i - 1, j] + gap, F[i, j - 1] + gap)
    return F[n, m], F
