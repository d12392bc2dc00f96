"""Spearman rank correlation matrix between columns with ties handled by average ranks:
ranks from argsort of argsort, then tie groups averaged with np.unique(return_inverse)
and np.add.at sums; the Pearson correlation of the ranks gives rho. Also a Kendall-style
concordance count for the first pair by a loop over rows with broadcasting."""
import numpy as np

NAME = "spearman_ranks"
LOOPS = {}
N = {"small": 800, "medium": 100_000}


def make_inputs(size, loop_scale=1):
    n = N[size]
    rng = np.random.default_rng(55)
    z = rng.standard_normal((n, 4))
    X = np.column_stack([z[:, 0], z[:, 0] + 0.5 * z[:, 1], np.round(z[:, 2] * 3),
                         np.exp(z[:, 0]) + z[:, 3]])
    return (X,)


def avg_rank(x):
    order = np.argsort(x, kind='mergesort')
    ranks = np.empty(x.size)
    ranks[order] = np.arange(1, x.size + 1)
    uniq, inv = np.unique(x, return_inverse=True)
    sums = np.zeros(uniq.size)
    np.add.at(sums, inv, ranks)
    counts = np.bincount(inv)
    return sums[inv] / counts[inv]


def run(X):
    n, d = X.shape
    R = np.empty_like(X)
    for j in range(d):
        R[:, j] = avg_rank(X[:, j])
    Rc = R - R.mean(axis=0)
    cov = Rc.T @ Rc
    sd = np.sqrt(np.diag(cov))
    rho = cov / np.outer(sd, sd)
    x, y = X[:, 0], X[:, 1]
    conc = 0
    disc = 0
    m = min(n, 400)
    for i in range(m - 1):
        s = np.sign(x[i + 1:m] - x[i]) * np.sign(y[i + 1:m] - y[i])
        conc += int((s > 0).sum())
        disc += int((s < 0).sum())
    tau = (conc - disc) / (0.5 * m * (m - 1))
    return rho, tau
