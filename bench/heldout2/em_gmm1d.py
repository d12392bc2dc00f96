"""Expectation-maximisation for a 1-D Gaussian mixture with K components: E-step
responsibilities via log-sum-exp, M-step weighted means/variances, stopping when the
log-likelihood improves by less than a tolerance (or after max_iter)."""
import numpy as np

NAME = "em_gmm1d"
LOOPS = {"max_iter": 200}
N = {"small": 1_500, "medium": 500_000}


def make_inputs(size, loop_scale=1):
    n = N[size]
    rng = np.random.default_rng(13)
    comp = rng.choice(3, size=n, p=[0.5, 0.3, 0.2])
    mus = np.array([-2.0, 1.0, 4.0])
    sds = np.array([0.7, 0.5, 1.2])
    x = rng.normal(mus[comp], sds[comp])
    return (x, 3, int(LOOPS["max_iter"] * loop_scale))


def run(x, K, max_iter):
    n = x.size
    qs = np.quantile(x, np.linspace(0.1, 0.9, K))
    mu = qs.copy()
    var = np.full(K, x.var())
    w = np.full(K, 1.0 / K)
    ll_old = -np.inf
    hist = []
    for it in range(max_iter):
        logp = (np.log(w) - 0.5 * np.log(2 * np.pi * var)
                - 0.5 * (x[:, None] - mu) ** 2 / var)
        m = logp.max(axis=1, keepdims=True)
        lse = m[:, 0] + np.log(np.exp(logp - m).sum(axis=1))
        ll = lse.sum()
        hist.append(ll)
        r = np.exp(logp - lse[:, None])
        nk = r.sum(axis=0)
        w = nk / n
        mu = (r * x[:, None]).sum(axis=0) / nk
        var = (r * (x[:, None] - mu) ** 2).sum(axis=0) / nk + 1e-6
        if ll - ll_old < 1e-8 * abs(ll):
            break
        ll_old = ll
    order = np.argsort(mu)
    return w[order], mu[order], var[order], np.array(hist)
