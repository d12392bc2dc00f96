"""BiCGSTAB (van der Vorst) for a nonsymmetric sparse-like system built as a dense
convection-diffusion-reaction matrix, in a while loop with a relative residual tolerance and
a breakdown check. Returns the solution, iterations and residual history."""
import numpy as np

NAME = "bicgstab"
LOOPS = {}
N = {"small": 200, "medium": 3000}


def make_inputs(size, loop_scale=1):
    n = N[size]
    h = 1.0 / (n + 1)
    pe = 20.0
    kappa = 2000.0
    main = (2.0 / h ** 2 + kappa) * np.ones(n)
    lo = (-1.0 / h ** 2 - pe / (2 * h)) * np.ones(n - 1)
    up = (-1.0 / h ** 2 + pe / (2 * h)) * np.ones(n - 1)
    A = np.diag(main) + np.diag(lo, -1) + np.diag(up, 1)
    x = np.linspace(0, 1, n)
    b = np.sin(3 * np.pi * x) + 1.0
    return (A, b, 1e-10, 2000)


def run(A, b, tol, maxiter):
    x = np.zeros_like(b)
    r = b - A @ x
    r_hat = r.copy()
    rho_old = alpha = omega = 1.0
    v = np.zeros_like(b)
    p = np.zeros_like(b)
    bnorm = np.linalg.norm(b)
    res = [np.linalg.norm(r) / bnorm]
    k = 0
    while res[-1] > tol and k < maxiter:
        rho = r_hat @ r
        if abs(rho) < 1e-300:
            break
        beta = (rho / rho_old) * (alpha / omega)
        p = r + beta * (p - omega * v)
        v = A @ p
        alpha = rho / (r_hat @ v)
        s = r - alpha * v
        if np.linalg.norm(s) / bnorm < tol:
            x = x + alpha * p
            res.append(np.linalg.norm(s) / bnorm)
            k += 1
            break
        t = A @ s
        omega = (t @ s) / (t @ t)
        x = x + alpha * p + omega * s
        r = s - omega * t
        rho_old = rho
        res.append(np.linalg.norm(r) / bnorm)
        k += 1
    return x, k, np.array(res)
