"""American put by the Cox-Ross-Rubinstein binomial tree (Hull, Options, Futures and Other
Derivatives): terminal payoffs, then backward induction of discounted risk-neutral
expectations with the early-exercise max at each level. The loop count is the number of
tree steps, scaled per size by N[size] / N["small"]."""
import numpy as np

NAME = "binomial_american_put"
LOOPS = {"N": 400}
N = {"small": 400, "medium": 2000}


def make_inputs(size, loop_scale=1):
    steps = LOOPS["N"] * loop_scale * N[size] // N["small"]
    return 100.0, 100.0, 0.05, 0.2, 1.0, steps


def run(S0, K, r, sigma, T, N):
    dt = T / N
    u = np.exp(sigma * np.sqrt(dt))
    d = 1 / u
    p = (np.exp(r * dt) - d) / (u - d)
    disc = np.exp(-r * dt)
    S = S0 * d**np.arange(N, -1, -1) * u**np.arange(0, N + 1)
    V = np.maximum(K - S, 0)
    for i in range(N - 1, -1, -1):
        S = S0 * d**np.arange(i, -1, -1) * u**np.arange(0, i + 1)
        V = disc * (p * V[1:i + 2] + (1 - p) * V[0:i + 1])
        V = np.maximum(V, K - S)
    return V[0]
