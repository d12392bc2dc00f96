"""SEIR compartment epidemic model (S -> E -> I -> R with rates beta S I / N, sigma, gamma)
integrated by forward Euler over a sweep of transmission rates beta at once, keeping the
peak of I per beta: the textbook epidemiology exercise written elementwise."""
import numpy as np

NAME = "seir_sweep"
LOOPS = {"days": 150}
N = {"small": 2000, "medium": 32_000}


def make_inputs(size, loop_scale=1):
    beta = np.linspace(0.1, 0.6, N[size])
    return beta, 1 / 5.2, 1 / 10, 1e6, 10.0, 0.5, LOOPS["days"] * loop_scale


def run(beta, sigma, gamma, N, I0, dt, days):
    """SEIR by forward Euler for a sweep of transmission rates."""
    S = np.full_like(beta, N - I0)
    E = np.zeros_like(beta)
    I = np.full_like(beta, I0)
    R = np.zeros_like(beta)
    nsteps = int(days / dt)
    peak = np.zeros_like(beta)
    for _ in range(nsteps):
        new_inf = beta * S * I / N
        dS = -new_inf
        dE = new_inf - sigma * E
        dI = sigma * E - gamma * I
        dR = gamma * I
        S = S + dt * dS
        E = E + dt * dE
        I = I + dt * dI
        R = R + dt * dR
        peak = np.maximum(peak, I)
    return S, I, R, peak
