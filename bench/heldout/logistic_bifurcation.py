"""Bifurcation diagram of the logistic map x_{n+1} = r x_n (1 - x_n) for a vector
of r values: iterate all r at once, discard a transient, then record the orbit
and estimate the Lyapunov exponent lambda(r) = mean log|r (1 - 2 x_n)|. Also counts
distinct attractor points per r by rounding and sorting."""
import numpy as np

NAME = "logistic_bifurcation"
LOOPS = {"iters": 300}
N = {"small": 400, "medium": 200_000}


def make_inputs(size, loop_scale=1):
    nr = N[size]
    r = np.linspace(2.5, 4.0, nr)
    iters = int(LOOPS["iters"] * loop_scale)
    return (r, iters, 100)


def run(r, iters, last):
    x = 1e-5 * np.ones_like(r)
    lyap = np.zeros_like(r)
    orbit = np.empty((last, r.size))
    for i in range(iters):
        x = r * x * (1 - x)
        if i >= iters - last:
            lyap += np.log(np.abs(r - 2 * r * x))
            orbit[i - (iters - last)] = x
    lyap /= last
    q = np.sort(np.round(orbit, 4), axis=0)
    nperiod = 1 + np.count_nonzero(np.diff(q, axis=0) > 0, axis=0)
    return lyap, nperiod, orbit[-1]
