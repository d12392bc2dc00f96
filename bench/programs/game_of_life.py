"""Conway's Game of Life on a torus: count the 8 neighbours with np.roll, then
a cell lives if it has 3 neighbours, or 2 and was alive."""
import numpy as np

NAME = "game_of_life"
LOOPS = {"generations": 50}
N = {"small": 256, "medium": 2048}


def make_inputs(size, loop_scale=1):
    rng = np.random.default_rng(0)
    board = (rng.random((N[size], N[size])) < 0.3).astype(np.uint8)
    return board, LOOPS["generations"] * loop_scale


def run(board, generations):
    for _ in range(generations):
        neighbours = sum(np.roll(np.roll(board, dy, axis=0), dx, axis=1)
                         for dy in (-1, 0, 1) for dx in (-1, 0, 1) if (dy, dx) != (0, 0))
        board = ((neighbours == 3) | ((board == 1) & (neighbours == 2))).astype(np.uint8)
    return board
