"""Adaptive Dormand-Prince RK5(4) for the Lorenz system (sigma 10, rho 28, beta 8/3): the
Butcher tableau as Python lists, the 5th- and 4th-order solutions' difference as the error
estimate, step accepted when err <= 1 and rescaled by 0.9 err^(-1/5) (Hairer, Norsett &
Wanner; Numerical Recipes' stepper). The size is the tolerance (smaller: more steps, ~10x at
1e-11); the loop count is the end time."""
import numpy as np

NAME = "rk45_lorenz"
LOOPS = {"t1": 5.0}
N = {"small": 1e-6, "medium": 1e-11}


def make_inputs(size, loop_scale=1):
    return np.array([1.0, 1.0, 1.0]), 0.0, LOOPS["t1"] * loop_scale, N[size]


def run(y0, t0, t1, tol):
    """Dormand-Prince with step size control, Lorenz system."""
    def f(t, y):
        return np.array([10.0 * (y[1] - y[0]), y[0] * (28.0 - y[2]) - y[1],
                         y[0] * y[1] - 8.0 / 3.0 * y[2]])
    c = [0, 1/5, 3/10, 4/5, 8/9, 1, 1]
    A = [[], [1/5], [3/40, 9/40], [44/45, -56/15, 32/9],
         [19372/6561, -25360/2187, 64448/6561, -212/729],
         [9017/3168, -355/33, 46732/5247, 49/176, -5103/18656],
         [35/384, 0, 500/1113, 125/192, -2187/6784, 11/84]]
    b5 = np.array([35/384, 0, 500/1113, 125/192, -2187/6784, 11/84, 0])
    b4 = np.array([5179/57600, 0, 7571/16695, 393/640, -92097/339200, 187/2100, 1/40])
    t, y, h = t0, y0.copy(), 0.01
    ts, ys = [t], [y]
    while t < t1:
        h = min(h, t1 - t)
        K = np.zeros((7, len(y)))
        for i in range(7):
            yi = y + h * sum(A[i][j] * K[j] for j in range(i))
            K[i] = f(t + c[i] * h, yi)
        y5 = y + h * (b5 @ K)
        y4 = y + h * (b4 @ K)
        err = np.linalg.norm(y5 - y4) / (tol * (1 + np.linalg.norm(y)))
        if err <= 1:
            t += h
            y = y5
            ts.append(t)
            ys.append(y)
        h *= min(5.0, max(0.2, 0.9 * err**-0.2))
    return np.array(ts), np.array(ys)
