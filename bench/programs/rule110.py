"""Elementary cellular automaton rule 110 (Wolfram), the rule table from the binary digits of
110 and each row looked up from (left << 2) | (centre << 1) | right with periodic np.roll
neighbours, all generations kept in a uint8 grid."""
import numpy as np

NAME = "rule110"
LOOPS = {"steps": 300}
N = {"small": 600, "medium": 16_000}


def make_inputs(size, loop_scale=1):
    return N[size], LOOPS["steps"] * loop_scale


def run(width, steps):
    rule = np.array([int(bit) for bit in np.binary_repr(110, 8)], dtype=np.uint8)[::-1]
    grid = np.zeros((steps, width), dtype=np.uint8)
    grid[0, -1] = 1
    for t in range(1, steps):
        prev = grid[t - 1]
        left = np.roll(prev, 1)
        right = np.roll(prev, -1)
        idx = (left << 2) | (prev << 1) | right
        grid[t] = rule[idx]
    return grid
