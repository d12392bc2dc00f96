"""Dynamic time warping distance between two series, the textbook double loop over a
cost matrix D[i, j] = |x_i - y_j| + min(D[i-1, j], D[i, j-1], D[i-1, j-1]) with a
Sakoe-Chiba band, followed by backtracking of the warping path."""
import numpy as np

NAME = "dtw_scalar"
LOOPS = {}
N = {"small": 120, "medium": 600}


def make_inputs(size, loop_scale=1):
    n = N[size]
    t = np.linspace(0, 4 * np.pi, n)
    rng = np.random.default_rng(4)
    x = np.sin(t) + 0.1 * rng.standard_normal(n)
    y = np.sin(t ** 1.1 * 0.9) + 0.1 * rng.standard_normal(n)
    return (x, y, n // 6)


def run(x, y, band):
    n, m = len(x), len(y)
    D = np.full((n + 1, m + 1), np.inf)
    D[0, 0] = 0.0
    for i in range(1, n + 1):
        lo = max(1, i - band)
        hi = min(m, i + band)
        for j in range(lo, hi + 1):
            cost = abs(x[i - 1] - y[j - 1])
            D[i, j] = cost + min(D[i - 1, j], D[i, j - 1], D[i - 1, j - 1])
    # backtrack
    i, j = n, m
    path = [(i - 1, j - 1)]
    while i > 1 or j > 1:
        steps = [D[i - 1, j - 1], D[i - 1, j], D[i, j - 1]]
        k = int(np.argmin(steps))
        if k == 0:
            i, j = i - 1, j - 1
        elif k == 1:
            i -= 1
        else:
            j -= 1
        path.append((i - 1, j - 1))
    return D[n, m], np.array(path[::-1])
