"""Stationary distribution of a Markov chain by power iteration pi <- pi P until the L1 change
drops below tol (a lazy random walk on a ring plus a small random jump component). It
stops on convergence, long before maxit: no LOOPS entry."""
import numpy as np

NAME = "markov_stationary"
LOOPS = {}
N = {"small": 150, "medium": 500}


def _markov(n, seed):
    r = np.random.default_rng(seed).random((n, n)) ** 8
    ring = 0.5 * np.eye(n) + 0.25 * np.roll(np.eye(n), 1, 1) + 0.25 * np.roll(np.eye(n), -1, 1)
    P = 0.97 * ring + 0.03 * r / r.sum(axis=1, keepdims=True)
    return P / P.sum(axis=1, keepdims=True)


def make_inputs(size, loop_scale=1):
    return _markov(N[size], 8), 1e-12, 2000


def run(P, tol, maxit):
    pi = np.ones(P.shape[0]) / P.shape[0]
    for it in range(maxit):
        new = pi @ P
        if np.abs(new - pi).sum() < tol:
            break
        pi = new
    return new, it
