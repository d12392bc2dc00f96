"""Multinomial logistic (softmax) regression by full-batch gradient descent with L2
regularisation: max-shifted softmax, cross-entropy loss, gradient X^T (P - Y) / n + reg W
(the CS231n softmax classifier exercise); training accuracy at the end."""
import numpy as np

from program_inputs import blobs

NAME = "softmax_regression"
LOOPS = {"iters": 100}
N = {"small": 1000, "medium": 12_000}


def make_inputs(size, loop_scale=1):
    X, y = blobs(N[size], 20, 5, 34)
    return X, y, 5, LOOPS["iters"] * loop_scale, 0.1, 1e-3


def run(X, y, k, iters, lr, reg):
    n, d = X.shape
    W = np.zeros((d, k))
    Y = np.eye(k)[y]
    for _ in range(iters):
        Z = X @ W
        Z -= Z.max(axis=1, keepdims=True)
        P = np.exp(Z)
        P /= P.sum(axis=1, keepdims=True)
        loss = -np.log(P[np.arange(n), y]).mean() + 0.5 * reg * np.sum(W * W)
        W -= lr * (X.T @ (P - Y) / n + reg * W)
    acc = (np.argmax(X @ W, axis=1) == y).mean()
    return W, loss, acc
