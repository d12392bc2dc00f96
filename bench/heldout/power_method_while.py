"""Power method with a Rayleigh-quotient convergence test in a while loop."""
import numpy as np
NAME = "power_method_while"
LOOPS = {}
N = {"small": 200, "medium": 2000}
def make_inputs(size, loop_scale=1):
    rng = np.random.default_rng(6)
    B = rng.random((N[size], N[size]))
    return B + B.T, rng.random(N[size])
def run(A, v):
    lam_old = 0.0
    lam = 1.0
    k = 0
    while abs(lam - lam_old) > 1e-10 * abs(lam) and k < 500:
        w = A @ v
        v = w / np.linalg.norm(w)
        lam_old = lam
        lam = v @ A @ v
        k += 1
    return lam, v, k
