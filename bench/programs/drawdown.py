"""Prefix operations on price paths: prices from compounded returns (cumprod), the running
peak (maximum.accumulate), the drawdown (P - peak) / peak, its worst value and when."""
import numpy as np

NAME = "drawdown"
LOOPS = {}
SHAPE = {"small": (1000, 50), "medium": (10_000, 500)}


def make_inputs(size, loop_scale=1):
    return (0.01 * np.random.default_rng(0).standard_normal(SHAPE[size]) + 2e-4,)


def run(returns):
    prices = 100.0 * np.cumprod(1.0 + returns, axis=0)
    peak = np.maximum.accumulate(prices, axis=0)
    drawdown = (prices - peak) / peak
    return prices, drawdown.min(axis=0), np.argmin(drawdown, axis=0)
