"""Damped, driven pendulum theta'' + q theta' + sin(theta) = F cos(wd t) integrated with
the explicit midpoint rule (RK2) for an ensemble of initial angles; a Poincare section is
sampled once per drive period. Written as a first-order system y = (theta, omega).
F = 0.9 keeps the motion periodic (F = 1.2 is chaotic and amplifies last-bit differences
of sin/cos into O(1) ones)."""
import numpy as np

NAME = "pendulum_rk2"
LOOPS = {"periods": 30}
N = {"small": 400, "medium": 200_000}


def make_inputs(size, loop_scale=1):
    n = N[size]
    theta0 = np.linspace(-np.pi + 0.01, np.pi - 0.01, n)
    omega0 = np.zeros(n)
    return (theta0, omega0, 0.5, 0.9, 2.0 / 3.0, int(LOOPS["periods"] * loop_scale))


def deriv(t, th, om, q, F, wd):
    return om, -q * om - np.sin(th) + F * np.cos(wd * t)


def run(theta0, omega0, q, F, wd, periods):
    steps_per = 20
    T = 2 * np.pi / wd
    dt = T / steps_per
    th = theta0.copy()
    om = omega0.copy()
    t = 0.0
    section = np.empty((periods, th.size))
    for p in range(periods):
        for s in range(steps_per):
            k1t, k1o = deriv(t, th, om, q, F, wd)
            k2t, k2o = deriv(t + 0.5 * dt, th + 0.5 * dt * k1t, om + 0.5 * dt * k1o, q, F, wd)
            th = th + dt * k2t
            om = om + dt * k2o
            t += dt
        # wrap into (-pi, pi]
        th = (th + np.pi) % (2 * np.pi) - np.pi
        section[p] = th
    return section, om
