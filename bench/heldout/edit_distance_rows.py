"""Levenshtein edit distance between two integer-coded strings with the DP table
filled one row at a time. Substitution and deletion are vectorized; the insertion
dependency along the row D[i,j] = min(D[i,j], D[i,j-1]+1) is resolved with a
running minimum trick: min over k<=j of (D[i,k] - k) + j, via np.minimum.accumulate."""
import numpy as np

NAME = "edit_distance_rows"
LOOPS = {"rows": 300}
N = {"small": 300, "medium": 100_000}


def make_inputs(size, loop_scale=1):
    m = N[size]
    n = int(LOOPS["rows"] * loop_scale)
    rng = np.random.default_rng(0)
    a = rng.integers(0, 4, size=n).astype(np.int8)     # "ACGT"
    b = rng.integers(0, 4, size=m).astype(np.int8)
    return (a, b)


def run(a, b):
    m = len(b)
    j = np.arange(m + 1)
    prev = j.copy()
    for i in range(1, len(a) + 1):
        cost = (b != a[i - 1]).astype(np.int64)
        cur = np.empty(m + 1, dtype=np.int64)
        cur[0] = i
        cur[1:] = np.minimum(prev[:-1] + cost, prev[1:] + 1)
        cur = np.minimum.accumulate(cur - j) + j
        prev = cur
    return int(prev[-1]), prev
