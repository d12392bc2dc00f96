"""Black-Scholes European option prices (float32, as in the classic benchmark):
d1 = (ln(S/K) + (r + sigma^2/2) T) / (sigma sqrt T),  d2 = d1 - sigma sqrt T,
call = S N(d1) - K e^{-rT} N(d2),  put = call - S + K e^{-rT} (put-call parity);
N is the normal CDF by the Abramowitz-Stegun polynomial 26.2.17."""
import numpy as np

NAME = "black_scholes"
LOOPS = {}
N = {"small": 100_000, "medium": 8_000_000}


def make_inputs(size, loop_scale=1):
    rng = np.random.default_rng(0)
    n = N[size]
    S = rng.uniform(5.0, 30.0, n).astype(np.float32)
    K = rng.uniform(1.0, 100.0, n).astype(np.float32)
    T = rng.uniform(0.25, 10.0, n).astype(np.float32)
    return S, K, T, 0.02, 0.30


def cnd(d):
    a1, a2, a3, a4, a5 = 0.31938153, -0.356563782, 1.781477937, -1.821255978, 1.330274429
    k = 1.0 / (1.0 + 0.2316419 * np.abs(d))
    w = 1.0 - 1.0 / np.sqrt(2 * np.pi) * np.exp(-d * d / 2) * k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5))))
    return np.where(d < 0, 1.0 - w, w)


def run(S, K, T, r, sigma):
    sqrtT = np.sqrt(T)
    d1 = (np.log(S / K) + (r + 0.5 * sigma * sigma) * T) / (sigma * sqrtT)
    d2 = d1 - sigma * sqrtT
    disc = K * np.exp(-r * T)
    call = S * cnd(d1) - disc * cnd(d2)
    put = call - S + disc
    return call, put
