"""Implicit Euler for the 1-D heat equation: (I - r L) u^{n+1} = u^n, dense solve per step."""
import numpy as np
NAME = "implicit_heat_solve"
LOOPS = {"steps": 20}
N = {"small": 120, "medium": 600}
def make_inputs(size, loop_scale=1):
    n = N[size]
    x = np.linspace(0, 1, n)
    return np.sin(np.pi * x) + 0.1 * np.sin(7 * np.pi * x), 0.5, LOOPS["steps"] * loop_scale
def run(u, r, steps):
    n = u.size
    A = np.eye(n) * (1 + 2 * r) - r * np.eye(n, k=1) - r * np.eye(n, k=-1)
    hist = []
    for s in range(steps):
        u = np.linalg.solve(A, u)
        hist.append(u.max())
    return u, np.array(hist)
