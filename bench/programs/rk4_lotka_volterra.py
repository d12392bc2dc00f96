"""Classical Runge-Kutta (RK4) integration of the Lotka-Volterra predator-prey system for many
parameter sets at once: x' = alpha x - beta x y,  y' = delta x y - gamma y;
s <- s + dt/6 (k1 + 2 k2 + 2 k3 + k4)."""
import numpy as np

NAME = "rk4_lotka_volterra"
LOOPS = {"steps": 50}
N = {"small": 20_000, "medium": 2_000_000}


def make_inputs(size, loop_scale=1):
    rng = np.random.default_rng(0)
    n = N[size]
    state = rng.uniform(0.5, 2.0, (2, n))
    params = rng.uniform(0.5, 1.5, (4, n))   # alpha, beta, delta, gamma per system
    return state, params, 0.01, LOOPS["steps"] * loop_scale


def rhs(s, p):
    x, y = s[0], s[1]
    alpha, beta, delta, gamma = p
    return np.stack([alpha * x - beta * x * y, delta * x * y - gamma * y])


def run(state, params, dt, steps):
    for _ in range(steps):
        k1 = rhs(state, params)
        k2 = rhs(state + 0.5 * dt * k1, params)
        k3 = rhs(state + 0.5 * dt * k2, params)
        k4 = rhs(state + dt * k3, params)
        state = state + dt / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
    return state
