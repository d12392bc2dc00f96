"""Trapezoid (np.trapezoid, np.trapz before NumPy 2.0) and composite Simpson quadrature of sin(k x) e^(-x) over [0, pi] for
many wavenumbers at once on a meshgrid, and Simpson's largest error against the
closed-form integral (numerical-analysis textbook comparison). No loop."""
import numpy as np

NAME = "quadrature_rules"
LOOPS = {}
N = {"small": 300, "medium": 3000}
# NumPy 2.0 renamed trapz to trapezoid, and 2.4 removed trapz
_trapezoid = getattr(np, "trapezoid", None) or np.trapz


def make_inputs(size, loop_scale=1):
    return np.linspace(0.5, 20, N[size]), 1001


def run(k, npts):
    x = np.linspace(0, np.pi, npts)
    X, K = np.meshgrid(x, k)
    Y = np.sin(K * X) * np.exp(-X)
    trap = _trapezoid(Y, x, axis=1)
    h = x[1] - x[0]
    simp = h / 3 * (Y[:, 0] + 4 * Y[:, 1:-1:2].sum(axis=1) + 2 * Y[:, 2:-1:2].sum(axis=1) + Y[:, -1])
    exact = K[:, 0] * (1 + np.exp(-np.pi) * -np.cos(K[:, 0] * np.pi)) / (1 + K[:, 0]**2)
    return trap, simp, np.abs(simp - exact).max()
