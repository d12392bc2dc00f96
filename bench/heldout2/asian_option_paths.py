"""Arithmetic-average Asian call priced by Monte Carlo under geometric Brownian motion,
legacy np.random (seeded inside), antithetic variates, a time loop that builds the
running average, and the geometric-average Asian as a control variate (its closed form
is known). Returns plain MC price, control-variate price and standard errors."""
import numpy as np
from math import log, sqrt, exp, erf

NAME = "asian_option_paths"
LOOPS = {"nsteps": 64}
N = {"small": 4000, "medium": 1_000_000}


def make_inputs(size, loop_scale=1):
    return (100.0, 100.0, 0.05, 0.25, 1.0, N[size], int(LOOPS["nsteps"] * loop_scale), 42)


def ncdf(x):
    return 0.5 * (1.0 + erf(x / sqrt(2.0)))


def geometric_asian(S0, K, r, sigma, T, m):
    sig_g = sigma * sqrt((m + 1) * (2 * m + 1) / (6.0 * m * m))
    mu_g = 0.5 * sig_g ** 2 + (r - 0.5 * sigma ** 2) * (m + 1) / (2.0 * m)
    d1 = (log(S0 / K) + (mu_g + 0.5 * sig_g ** 2) * T) / (sig_g * sqrt(T))
    d2 = d1 - sig_g * sqrt(T)
    return exp(-r * T) * (S0 * exp(mu_g * T) * ncdf(d1) - K * ncdf(d2))


def run(S0, K, r, sigma, T, npaths, nsteps, seed):
    np.random.seed(seed)
    dt = T / nsteps
    drift = (r - 0.5 * sigma ** 2) * dt
    vol = sigma * np.sqrt(dt)
    half = npaths // 2
    logS = np.full(2 * half, np.log(S0))
    arith = np.zeros(2 * half)
    geo = np.zeros(2 * half)
    for i in range(nsteps):
        z = np.random.standard_normal(half)
        z = np.concatenate([z, -z])
        logS += drift + vol * z
        arith += np.exp(logS)
        geo += logS
    arith /= nsteps
    geo = np.exp(geo / nsteps)
    disc = np.exp(-r * T)
    pa = disc * np.maximum(arith - K, 0.0)
    pg = disc * np.maximum(geo - K, 0.0)
    price = pa.mean()
    se = pa.std(ddof=1) / np.sqrt(pa.size)
    c = np.cov(pa, pg)
    beta = c[0, 1] / c[1, 1]
    cv = pa - beta * (pg - geometric_asian(S0, K, r, sigma, T, nsteps))
    return price, se, cv.mean(), cv.std(ddof=1) / np.sqrt(cv.size)
