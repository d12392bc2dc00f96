"""Writes the session file of a small traced program into argv[1] and prints its path: one
graph break, one recompile (float64 -> float32), several kernels. Run in a fresh process so
that the session holds exactly this program. Used by the viewer and report screenshot tests."""
import sys

import numpy as np

import npcompile
from npcompile._native import profiler as prof


@npcompile.jit
def step(x, y):
    z = np.sin(x) * 2.0 + np.cos(y)
    if z.sum() > 0:  # Python needs a bool: a graph break
        z = z - z.mean()
    return np.exp(-z * z).sum()


def main(directory):
    x = np.linspace(0.0, 1.0, 100_000)
    y = np.linspace(1.0, 2.0, 100_000)
    for _ in range(3):
        step(x, y)
    step(x.astype(np.float32), y)  # a dtype change: a recompile
    print(prof.session_file(directory))


if __name__ == "__main__":
    main(sys.argv[1])
