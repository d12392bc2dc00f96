"""Bootstrap particle filter for the classic nonlinear benchmark
x_t = x/2 + 25 x/(1 + x^2) + 8 cos(1.2 t) + noise, y_t = x_t^2/20 + noise (Gordon, Salmond
& Smith 1993): propagate, reweight by the likelihood, multinomial
resampling by searchsorted on the weight CDF when the effective sample size halves.
N[size] is the number of particles; the loop count is the number of observations."""
import numpy as np

NAME = "particle_filter"
LOOPS = {"T": 80}
N = {"small": 1000, "medium": 12_000}


def _pf_obs(T, seed):
    rng = np.random.default_rng(seed)
    x = 0.1
    obs = np.empty(T)
    for t in range(T):
        x = 0.5 * x + 25 * x / (1 + x**2) + 8 * np.cos(1.2 * t) + rng.normal(0, np.sqrt(10))
        obs[t] = x**2 / 20 + rng.normal()
    return obs


def make_inputs(size, loop_scale=1):
    return _pf_obs(LOOPS["T"] * loop_scale, 37), N[size], 1


def run(obs, n, seed):
    rng = np.random.default_rng(seed)
    parts = rng.normal(0, 1, n)
    w = np.ones(n) / n
    est = np.empty(len(obs))
    for t, y in enumerate(obs):
        parts = (0.5 * parts + 25 * parts / (1 + parts**2) + 8 * np.cos(1.2 * t)
                 + rng.normal(0, np.sqrt(10), n))
        w *= np.exp(-(y - parts**2 / 20)**2 / 2)
        w += 1e-300
        w /= w.sum()
        est[t] = np.sum(w * parts)
        neff = 1 / np.sum(w**2)
        if neff < n / 2:
            cs = np.cumsum(w)
            cs[-1] = 1.0
            idx = np.searchsorted(cs, rng.random(n))
            parts = parts[idx]
            w.fill(1.0 / n)
    return est
