"""The table of kernel structures seen at several sizes (backends/cpu_symbolic.py)."""
import numpy as np

from npcompile.backends import cpu_symbolic
from npcompile.fusion.expr import Expr


def test_a_full_table_of_structures_keeps_the_ones_a_graph_has(monkeypatch):
    """Past the table's size the oldest structure is forgotten, never one of the graph
    being planned (that was a KeyError, and the graph ran in NumPy)."""
    monkeypatch.setattr(cpu_symbolic, "_SEEN_MAX", 2)

    def step(n, dtype):
        ld = Expr("load", object(), [], (n,), dtype)
        return ("kernel", [(None, Expr("pw", "negative", [ld], (n,), dtype))], (n,))
    seen = {}
    cpu_symbolic.sized_alike([step(5, np.float64)], seen)              # the oldest
    cpu_symbolic.sized_alike([step(5, np.float32)], seen)
    got = cpu_symbolic.sized_alike([step(6, np.float64), step(5, np.int32)], seen)
    assert got == {0}   # float64 negation seen at 5 and 6: symbolic
