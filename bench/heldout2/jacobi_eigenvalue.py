"""Classical Jacobi eigenvalue algorithm for a symmetric matrix: repeatedly find the
largest off-diagonal entry with argmax, compute the rotation angle, and apply the plane
rotation to rows and columns p, q (and accumulate eigenvectors) until the off-diagonal
norm drops below a tolerance, in a while loop."""
import numpy as np

NAME = "jacobi_eigenvalue"
LOOPS = {}
N = {"small": 16, "medium": 120}


def make_inputs(size, loop_scale=1):
    n = N[size]
    rng = np.random.default_rng(3)
    B = rng.standard_normal((n, n))
    return (B + B.T,)


def run(S):
    A = S.copy()
    n = A.shape[0]
    V = np.eye(n)
    off = np.sqrt(np.sum(A ** 2) - np.sum(np.diag(A) ** 2))
    tol = 1e-10 * np.linalg.norm(A)
    rotations = 0
    while off > tol and rotations < 20 * n * n:
        M = np.abs(A - np.diag(np.diag(A)))
        idx = np.argmax(M)
        p, q = divmod(idx, n)
        if A[p, q] == 0.0:
            break
        theta = (A[q, q] - A[p, p]) / (2.0 * A[p, q])
        t = np.sign(theta) / (abs(theta) + np.sqrt(theta ** 2 + 1.0))
        if theta == 0.0:
            t = 1.0
        c = 1.0 / np.sqrt(t ** 2 + 1.0)
        s = t * c
        Ap = A[:, p].copy()
        Aq = A[:, q].copy()
        A[:, p] = c * Ap - s * Aq
        A[:, q] = s * Ap + c * Aq
        Ap = A[p, :].copy()
        Aq = A[q, :].copy()
        A[p, :] = c * Ap - s * Aq
        A[q, :] = s * Ap + c * Aq
        Vp = V[:, p].copy()
        Vq = V[:, q].copy()
        V[:, p] = c * Vp - s * Vq
        V[:, q] = s * Vp + c * Vq
        rotations += 1
        off = np.sqrt(max(np.sum(A ** 2) - np.sum(np.diag(A) ** 2), 0.0))
    w = np.diag(A)
    order = np.argsort(w)
    return w[order], np.abs(V[:, order]), rotations
