"""Newton's method for the Bratu boundary-value problem u'' + lambda e^u = 0, u(0) = u(1) = 0,
on n interior points: residual from shifted copies, dense tridiagonal Jacobian from np.diag,
np.linalg.solve per step (a standard nonlinear-BVP example). Stops on convergence after a
few steps: no LOOPS entry."""
import numpy as np

NAME = "newton_bratu"
LOOPS = {}
N = {"small": 150, "medium": 350}


def make_inputs(size, loop_scale=1):
    return N[size], 2.0, 1e-10


def run(n, lam, tol):
    """Newton's method for the discretised Bratu problem u'' + lam e^u = 0."""
    h = 1.0 / (n + 1)
    u = np.zeros(n)
    off = np.ones(n - 1) / h**2
    for it in range(50):
        F = (np.r_[u[1:], 0.0] - 2 * u + np.r_[0.0, u[:-1]]) / h**2 + lam * np.exp(u)
        J = np.diag(-2 / h**2 + lam * np.exp(u)) + np.diag(off, 1) + np.diag(off, -1)
        du = np.linalg.solve(J, -F)
        u += du
        if np.linalg.norm(du) < tol:
            break
    return u, it
