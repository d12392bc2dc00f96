"""Stiff Van der Pol oscillator (mu = 10, h = 1/15) with the implicit (backward) Euler method:
each step solves the nonlinear system by Newton's method with the analytic 2x2 Jacobian
and np.linalg.solve, in a while loop with a tolerance on the Newton update. Adaptive
step halving when Newton fails to converge in 8 iterations."""
import numpy as np

NAME = "backward_euler_vdp"
LOOPS = {"steps": 200}
N = {"small": 1, "medium": 1}


def make_inputs(size, loop_scale=1):
    return (np.array([2.0, 0.0]), 10.0, 0.0, 20.0, int(LOOPS["steps"] * loop_scale))


def f(y, mu):
    return np.array([y[1], mu * (1 - y[0] ** 2) * y[1] - y[0]])


def jac(y, mu):
    return np.array([[0.0, 1.0],
                     [-2 * mu * y[0] * y[1] - 1.0, mu * (1 - y[0] ** 2)]])


def run(y0, mu, t0, t1, steps):
    h = (t1 - t0) / steps
    t = t0
    y = y0.copy()
    ts = [t]
    ys = [y.copy()]
    newton_total = 0
    while t < t1 - 1e-12:
        hh = min(h, t1 - t)
        z = y.copy()
        k = 0
        converged = False
        while k < 8:
            G = z - y - hh * f(z, mu)
            J = np.eye(2) - hh * jac(z, mu)
            dz = np.linalg.solve(J, -G)
            z = z + dz
            k += 1
            if np.linalg.norm(dz) < 1e-10 * (1 + np.linalg.norm(z)):
                converged = True
                break
        newton_total += k
        if not converged:
            h = hh / 2
            continue
        y = z
        t = t + hh
        ts.append(t)
        ys.append(y.copy())
    return np.array(ts), np.array(ys), newton_total
