"""Principal component analysis two ways: eigh of the covariance matrix and the SVD of the
centred data, with the sign convention of scikit-learn's svd_flip, the projections on the
first k components and their explained variance ratios. No loop."""
import numpy as np

NAME = "pca_svd"
LOOPS = {}
N = {"small": 2000, "medium": 30_000}


def make_inputs(size, loop_scale=1):
    X = (np.random.default_rng(29).standard_normal((N[size], 20))
         @ np.random.default_rng(30).standard_normal((20, 20)))
    return X, 3


def run(X, k):
    Xc = X - X.mean(axis=0)
    C = Xc.T @ Xc / (X.shape[0] - 1)
    evals, evecs = np.linalg.eigh(C)
    order = np.argsort(evals)[::-1]
    evals = evals[order]
    U, S, Vt = np.linalg.svd(Xc, full_matrices=False)
    signs = np.sign(Vt[np.arange(k), np.argmax(np.abs(Vt[:k]), axis=1)])
    comps = Vt[:k] * signs[:, None]
    proj = Xc @ comps.T
    explained = S[:k]**2 / np.sum(S**2)
    return proj, explained, evals[:k]
