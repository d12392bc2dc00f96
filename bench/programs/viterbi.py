"""Viterbi decoding of a hidden Markov model in log space: delta_t = max over previous state
of delta_{t-1} + log A, plus log B of the observation, with back-pointers from argmax and
a backtracking loop (Rabiner's HMM tutorial). N[size] is the number of hidden states;
the loop count is the sequence length."""
import numpy as np

NAME = "viterbi"
LOOPS = {"T": 400}
N = {"small": 16, "medium": 160}


def _hmm(seed, N, M, T):
    rng = np.random.default_rng(seed)
    A = rng.random((N, N)) + np.eye(N) * 3
    A /= A.sum(1, keepdims=True)
    B = rng.random((N, M))
    B /= B.sum(1, keepdims=True)
    pi = np.full(N, 1 / N)
    obs = rng.integers(0, M, T)
    return obs, pi, A, B


def make_inputs(size, loop_scale=1):
    return _hmm(22, N[size], 12, LOOPS["T"] * loop_scale)


def run(obs, pi, A, B):
    T = len(obs)
    N = A.shape[0]
    logA, logB = np.log(A), np.log(B)
    delta = np.zeros((T, N))
    psi = np.zeros((T, N), dtype=int)
    delta[0] = np.log(pi) + logB[:, obs[0]]
    for t in range(1, T):
        scores = delta[t - 1][:, None] + logA
        psi[t] = np.argmax(scores, axis=0)
        delta[t] = np.max(scores, axis=0) + logB[:, obs[t]]
    path = np.zeros(T, dtype=int)
    path[-1] = np.argmax(delta[-1])
    for t in range(T - 2, -1, -1):
        path[t] = psi[t + 1, path[t + 1]]
    return path, delta[-1].max()
