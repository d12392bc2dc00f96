"""Drossel-Schwabl forest-fire cellular automaton on an int8 grid (0 empty, 1 tree,
2 burning): a burning cell becomes empty, a tree ignites if a von Neumann neighbour
burns (np.roll, periodic) or by lightning with probability f, and an empty cell grows a
tree with probability p. Legacy np.random seeded inside; returns the final grid and
tree/fire counts per step."""
import numpy as np

NAME = "forest_fire"
LOOPS = {"steps": 100}
N = {"small": 96, "medium": 2048}


def make_inputs(size, loop_scale=1):
    n = N[size]
    return (n, 0.05, 0.0005, int(LOOPS["steps"] * loop_scale), 3)


def run(n, p, f, steps, seed):
    np.random.seed(seed)
    EMPTY, TREE, FIRE = 0, 1, 2
    g = np.zeros((n, n), dtype=np.int8)
    g[np.random.random((n, n)) < 0.55] = TREE
    trees = np.zeros(steps, dtype=np.int64)
    fires = np.zeros(steps, dtype=np.int64)
    for t in range(steps):
        burning = g == FIRE
        nb = (np.roll(burning, 1, 0) | np.roll(burning, -1, 0)
              | np.roll(burning, 1, 1) | np.roll(burning, -1, 1))
        u = np.random.random((n, n))
        new = g.copy()
        new[burning] = EMPTY
        is_tree = g == TREE
        new[is_tree & (nb | (u < f))] = FIRE
        new[(g == EMPTY) & (u < p)] = TREE
        g = new
        trees[t] = np.count_nonzero(g == TREE)
        fires[t] = np.count_nonzero(g == FIRE)
    return g, trees, fires
