"""Principal components by power iteration with deflation: center the data, form the
covariance, then for each component iterate v <- C v / |C v| until the direction changes
by less than a tolerance (while loop), record the eigenvalue by the Rayleigh quotient,
and deflate C -= lam v v^T. Returns components, explained variance ratios and scores."""
import numpy as np
from program_inputs import blobs

NAME = "pca_deflation"
LOOPS = {}
N = {"small": 1_000, "medium": 200_000}


def make_inputs(size, loop_scale=1):
    X, _ = blobs(N[size], 20, 5, 14)
    X[:, 3] = 2 * X[:, 0] + 0.1 * X[:, 3]
    return (X, 5)


def run(X, ncomp):
    Xc = X - X.mean(axis=0)
    C = Xc.T @ Xc / (X.shape[0] - 1)
    total = np.trace(C)
    d = C.shape[0]
    comps = np.zeros((ncomp, d))
    lams = np.zeros(ncomp)
    iters = []
    for k in range(ncomp):
        v = np.ones(d) / np.sqrt(d)
        it = 0
        while True:
            w = C @ v
            w /= np.linalg.norm(w)
            if w[np.argmax(np.abs(w))] < 0:
                w = -w
            it += 1
            if np.linalg.norm(w - v) < 1e-10 or it >= 1000:
                v = w
                break
            v = w
        lam = v @ C @ v
        comps[k] = v
        lams[k] = lam
        iters.append(it)
        C = C - lam * np.outer(v, v)
    scores = Xc @ comps.T
    return comps, lams / total, scores, iters
