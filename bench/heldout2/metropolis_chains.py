"""Random-walk Metropolis sampling of a correlated 2-D Gaussian with many independent
chains advanced together: propose x' = x + s*z, accept where log u < logp(x') - logp(x)
using np.where, and adapt the step size every 50 iterations toward 30% acceptance.
Returns the sample mean, covariance estimate and acceptance history."""
import numpy as np

NAME = "metropolis_chains"
LOOPS = {"iters": 300}
N = {"small": 256, "medium": 100_000}


def make_inputs(size, loop_scale=1):
    nchains = N[size]
    cov = np.array([[1.0, 0.8], [0.8, 2.0]])
    return (nchains, cov, int(LOOPS["iters"] * loop_scale), 2024)


def logp(x, P):
    return -0.5 * np.einsum('ni,ij,nj->n', x, P, x)


def run(nchains, cov, iters, seed):
    rng = np.random.default_rng(seed)
    P = np.linalg.inv(cov)
    x = rng.standard_normal((nchains, 2)) * 3.0
    lp = logp(x, P)
    step = 1.0
    acc_hist = []
    s1 = np.zeros(2)
    s2 = np.zeros((2, 2))
    nkept = 0
    acc_count = 0
    for it in range(iters):
        prop = x + step * rng.standard_normal((nchains, 2))
        lp_prop = logp(prop, P)
        accept = np.log(rng.random(nchains)) < lp_prop - lp
        x = np.where(accept[:, None], prop, x)
        lp = np.where(accept, lp_prop, lp)
        acc_count += accept.sum()
        if (it + 1) % 50 == 0:
            rate = acc_count / (50 * nchains)
            acc_hist.append(rate)
            step *= np.exp(rate - 0.3)
            acc_count = 0
        if it >= iters // 2:
            s1 += x.sum(axis=0)
            s2 += x.T @ x
            nkept += nchains
    mean = s1 / nkept
    covest = s2 / nkept - np.outer(mean, mean)
    return mean, covest, np.array(acc_hist), step
