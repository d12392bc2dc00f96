"""Euler-Maruyama simulation of an ensemble of Ornstein-Uhlenbeck paths
dX = theta (mu - X) dt + sigma dW, X_{n+1} = X_n + theta(mu - X_n) dt + sigma sqrt(dt) Z_n,
with the Gaussian increments drawn inside run() from a seeded generator. Returns
the ensemble mean and variance over time and the terminal distribution histogram."""
import numpy as np

NAME = "euler_maruyama_ou"
LOOPS = {"steps": 150}
N = {"small": 2_000, "medium": 500_000}


def make_inputs(size, loop_scale=1):
    npaths = N[size]
    steps = int(LOOPS["steps"] * loop_scale)
    x0 = np.full(npaths, 2.0)
    return (x0, 1.5, 0.5, 0.3, 1.0 / steps, steps, 42)


def run(x0, theta, mu, sigma, dt, steps, seed):
    rng = np.random.default_rng(seed)
    x = x0.copy()
    mean = np.empty(steps + 1)
    var = np.empty(steps + 1)
    mean[0], var[0] = x.mean(), x.var()
    sdt = np.sqrt(dt)
    for n in range(steps):
        dW = rng.standard_normal(x.shape[0]) * sdt
        x += theta * (mu - x) * dt + sigma * dW
        mean[n + 1] = x.mean()
        var[n + 1] = x.var()
    hist, edges = np.histogram(x, bins=30, range=(-1.0, 2.5))
    return mean, var, hist
