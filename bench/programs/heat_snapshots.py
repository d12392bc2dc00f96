"""1-D heat equation by explicit finite differences, keeping a snapshot of the profile every
`every` steps for a plot afterwards (the usual `if n % every == 0: frames.append(u.copy())`
of teaching code), and the total heat per snapshot."""
import numpy as np

NAME = "heat_snapshots"
LOOPS = {"steps": 400}
N = {"small": 2000, "medium": 200_000}


def make_inputs(size, loop_scale=1):
    x = np.linspace(0.0, 1.0, N[size])
    u0 = np.exp(-200.0 * (x - 0.3) ** 2)
    return u0, 0.4, LOOPS["steps"] * loop_scale, 20


def run(u0, r, steps, every):
    u = u0.copy()
    frames, heat = [], []
    for n in range(steps):
        u[1:-1] = u[1:-1] + r * (u[2:] - 2.0 * u[1:-1] + u[:-2])
        if n % every == 0:
            frames.append(u.copy())
            heat.append(u.sum())
    return np.array(frames), np.array(heat)
