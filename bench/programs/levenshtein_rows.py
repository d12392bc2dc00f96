"""Levenshtein edit distance, one DP row per symbol of a: substitutions and deletions
vectorised over the row, insertions by a running minimum (np.minimum.accumulate of
cur - j, plus j). The loop count is len(a); N[size] is len(b)."""
import numpy as np

NAME = "levenshtein_rows"
LOOPS = {"len_a": 300}
N = {"small": 280, "medium": 12_000}


def make_inputs(size, loop_scale=1):
    a = np.random.default_rng(23).integers(0, 4, LOOPS["len_a"] * loop_scale)
    b = np.random.default_rng(24).integers(0, 4, N[size])
    return a, b


def run(a, b):
    m = len(b)
    j = np.arange(m + 1)
    prev = j.copy()
    for i in range(1, len(a) + 1):
        cur = np.empty_like(prev)
        cur[0] = i
        cur[1:] = np.minimum(prev[:-1] + (a[i - 1] != b), prev[1:] + 1)
        cur = np.minimum.accumulate(cur - j) + j     # insertions
        prev = cur
    return prev[-1]
