"""Polynomial evaluation by Horner's rule, p(x) = (...((c_0 x + c_1) x + c_2) ...) x + c_deg,
on many points (the Taylor series of exp(x) - 1 ... here random coefficients)."""
import numpy as np

NAME = "horner"
LOOPS = {"degree": 20}
N = {"small": 100_000, "medium": 8_000_000}


def make_inputs(size, loop_scale=1):
    rng = np.random.default_rng(0)
    coeffs = rng.standard_normal(LOOPS["degree"] * loop_scale + 1) / 10
    return coeffs, rng.uniform(-1.0, 1.0, N[size])


def run(coeffs, x):
    y = np.zeros_like(x)
    for c in coeffs:
        y = y * x + c
    return y
