"""0/1 knapsack by dynamic programming, one vectorized row per item:
best[c] = max(best[c], best[c - w_i] + v_i) for all capacities c >= w_i,
evaluated on the previous row so each item is used at most once. Also records
which items were taken (keep table) and backtracks the chosen set."""
import numpy as np

NAME = "knapsack_rows"
LOOPS = {"items": 200}
N = {"small": 1_000, "medium": 200_000}


def make_inputs(size, loop_scale=1):
    cap = N[size]
    n_items = int(LOOPS["items"] * loop_scale)
    rng = np.random.default_rng(0)
    w = rng.integers(1, max(cap // 10, 2), size=n_items).astype(np.int64)
    v = rng.integers(1, 100, size=n_items).astype(np.int64)
    return (w, v, cap)


def run(w, v, cap):
    n = len(w)
    best = np.zeros(cap + 1, dtype=np.int64)
    keep = np.zeros((n, cap + 1), dtype=bool)
    for i in range(n):
        wi = w[i]
        cand = best[:cap + 1 - wi] + v[i]
        take = cand > best[wi:]
        keep[i, wi:] = take
        best[wi:] = np.where(take, cand, best[wi:])
    # backtrack
    c = cap
    chosen = np.zeros(n, dtype=bool)
    for i in range(n - 1, -1, -1):
        if keep[i, c]:
            chosen[i] = True
            c -= w[i]
    return int(best[cap]), chosen
