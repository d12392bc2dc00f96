"""Logistic regression fitted by Newton's method / iteratively reweighted least squares:
each iteration forms the weights p(1-p), the Hessian X^T W X (plus a small ridge) and
solves for the Newton step; stops when the step norm is below a tolerance. Returns the
coefficients, standard errors from the inverse Hessian and the deviance history."""
import numpy as np

NAME = "irls_logistic"
LOOPS = {}
N = {"small": 2_000, "medium": 500_000}


def make_inputs(size, loop_scale=1):
    n = N[size]
    rng = np.random.default_rng(41)
    X = np.column_stack([np.ones(n), rng.standard_normal((n, 6))])
    beta = np.array([-0.5, 1.0, -2.0, 0.5, 0.0, 0.3, 1.5])
    p = 1 / (1 + np.exp(-X @ beta))
    y = (rng.random(n) < p).astype(np.float64)
    return (X, y)


def run(X, y):
    n, d = X.shape
    beta = np.zeros(d)
    dev = []
    for it in range(50):
        eta = X @ beta
        p = 1.0 / (1.0 + np.exp(-eta))
        p = np.clip(p, 1e-12, 1 - 1e-12)
        dev.append(-2 * np.sum(y * np.log(p) + (1 - y) * np.log(1 - p)))
        W = p * (1 - p)
        H = X.T @ (X * W[:, None]) + 1e-8 * np.eye(d)
        g = X.T @ (y - p)
        step = np.linalg.solve(H, g)
        beta = beta + step
        if np.linalg.norm(step) < 1e-10:
            break
    se = np.sqrt(np.diag(np.linalg.inv(H)))
    return beta, se, np.array(dev)
