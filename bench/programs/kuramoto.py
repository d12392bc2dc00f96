"""Kuramoto model of coupled phase oscillators, d theta_i/dt = omega_i +
(K/N) sum_j sin(theta_j - theta_i), by forward Euler with the all-pairs phase differences
as an N x N broadcast; records the order parameter r = |mean(exp(i theta))| each step
(Strogatz, "From Kuramoto to Crawford")."""
import numpy as np

NAME = "kuramoto"
LOOPS = {"nsteps": 60}
N = {"small": 150, "medium": 500}


def make_inputs(size, loop_scale=1):
    n = N[size]
    theta = np.random.default_rng(2).uniform(0, 2 * np.pi, n)
    omega = np.random.default_rng(3).normal(0, 0.5, n)
    return theta, omega, 1.5, 0.05, LOOPS["nsteps"] * loop_scale


def run(theta, omega, K, dt, nsteps):
    N = len(theta)
    r_hist = np.zeros(nsteps)
    for t in range(nsteps):
        diff = theta[None, :] - theta[:, None]
        theta = theta + dt * (omega + K / N * np.sin(diff).sum(axis=1))
        r_hist[t] = np.abs(np.mean(np.exp(1j * theta)))
    return np.mod(theta, 2 * np.pi), r_hist
