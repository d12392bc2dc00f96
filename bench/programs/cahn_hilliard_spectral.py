"""Cahn-Hilliard spinodal decomposition c_t = lap(c^3 - c) - gamma lap^2 c by a
semi-implicit Fourier-spectral scheme (Chen & Shen): the nonlinear chemical potential
explicit, the stiff biharmonic term implicit, c_hat' = (c_hat - dt k^2 mu_hat) /
(1 + dt gamma k^4), on a periodic 2*pi box."""
import numpy as np

NAME = "cahn_hilliard_spectral"
LOOPS = {"nsteps": 40}
N = {"small": 64, "medium": 256}


def make_inputs(size, loop_scale=1):
    n = N[size]
    c0 = 0.05 * np.random.default_rng(101).standard_normal((n, n))
    return c0, LOOPS["nsteps"] * loop_scale


def run(c0, nsteps):
    """Semi-implicit spectral Cahn-Hilliard."""
    n = c0.shape[0]
    L = 2 * np.pi
    dt = 0.01
    gamma = 0.5
    k = 2 * np.pi * np.fft.fftfreq(n, d=L / n)
    kx, ky = np.meshgrid(k, k)
    k2 = kx**2 + ky**2
    c = c0.copy()
    for _ in range(nsteps):
        mu_hat = np.fft.fft2(c**3 - c)
        c_hat = (np.fft.fft2(c) - dt * k2 * mu_hat) / (1 + dt * gamma * k2**2)
        c = np.real(np.fft.ifft2(c_hat))
    return c, c.mean()
