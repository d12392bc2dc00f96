"""Progressive income tax by brackets with np.select and np.where, a smooth piecewise
function with np.piecewise, and the effective rate by a masked np.divide(where=...) and
an in-place clip: the piecewise-definition idioms of the NumPy docs. No loop."""
import numpy as np

NAME = "piecewise_tax"
LOOPS = {}
N = {"small": 300_000, "medium": 2_000_000}


def make_inputs(size, loop_scale=1):
    return (np.random.default_rng(21).uniform(-5, 200000, N[size]),)


def run(income):
    income = income.copy()
    income[income < 0] = 0
    tax = np.select([income <= 10000, income <= 40000, income <= 100000],
                    [0.0 * income,
                     0.2 * (income - 10000),
                     6000 + 0.4 * (income - 40000)],
                    default=30000 + 0.45 * (income - 100000))
    tax = np.where(income <= 10000, 0.0, tax)
    smooth = np.piecewise(income, [income < 50000, income >= 50000],
                          [lambda v: v**2 / 1e5, lambda v: v - 25000])
    rate = np.empty_like(income)
    np.divide(tax, income, out=rate, where=income > 0)
    rate[income == 0] = 0
    np.clip(rate, 0, 0.45, out=rate)
    return tax, smooth, rate
