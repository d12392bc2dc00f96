"""Longest increasing subsequence by the O(n^2) dynamic program with a vectorized inner
step: L[i] = 1 + max(L[j] for j < i with a[j] < a[i]), using a boolean mask on the
prefix, plus parent pointers via argmax to recover one subsequence. Cross-checked with
the patience-sorting length computed by np.searchsorted."""
import numpy as np

NAME = "lis_dp"
LOOPS = {}
N = {"small": 600, "medium": 6000}


def make_inputs(size, loop_scale=1):
    rng = np.random.default_rng(9)
    a = rng.integers(0, 10 * N[size], N[size])
    return (a,)


def run(a):
    n = a.size
    L = np.ones(n, dtype=np.int64)
    parent = np.full(n, -1, dtype=np.int64)
    for i in range(1, n):
        mask = a[:i] < a[i]
        if mask.any():
            cand = np.where(mask, L[:i], 0)
            j = np.argmax(cand)
            L[i] = cand[j] + 1
            parent[i] = j
    end = int(np.argmax(L))
    seq = []
    while end != -1:
        seq.append(a[end])
        end = parent[end]
    seq = np.array(seq[::-1])
    # patience sorting length
    tails = np.empty(0, dtype=a.dtype)
    for v in a:
        k = np.searchsorted(tails, v, side='left')
        if k == tails.size:
            tails = np.append(tails, v)
        else:
            tails[k] = v
    return L.max(), seq, tails.size
