"""Recorded NumPy calls of nodes, run again on values: what the reference executor does
for one node (exec/reference.py), and a sequence of nodes kept as their calls after the
nodes themselves have become leaves, so that a plan of steps (api/step_plan.py) can run
it again on other inputs: a graph of views only, run on the reference path (`row = A[i]`
before `np.unique(row)`), and the 0-d arithmetic on elements that Python read straight
from concrete arrays (`if err > tol`: trace/steps.py)."""
from .node import substitute


def call(fn, args, kwargs, ins):
    """One node's recorded call on its inputs' values `ins`."""
    return fn(*substitute(args, ins), **(substitute(kwargs, ins) if kwargs else {}))


class Recorded:
    """Nodes `pending` (inputs first) as their calls, over the leaves `leaves`;
    run_values(leaf values, in `leaves` order) -> the values of `outputs`."""

    last_timings = ()
    graph_id = -1

    def __init__(self, leaves, pending, outputs):
        at = {id(leaf): k for k, leaf in enumerate(leaves)}
        pos = {}
        self.calls = []
        for k, n in enumerate(pending):
            pos[id(n)] = k
            self.calls.append((n.fn, n.args, n.kwargs,
                               [(0, at[id(i)]) if i.is_leaf else (1, pos[id(i)])
                                for i in n.inputs]))
        self.outputs = [(0, at[id(o)]) if o.is_leaf else (1, pos[id(o)]) for o in outputs]

    def run_values(self, leaf_values):
        vals = []
        for fn, args, kwargs, ins in self.calls:
            vals.append(call(fn, args, kwargs,
                             [leaf_values[k] if kind == 0 else vals[k] for kind, k in ins]))
        return [leaf_values[k] if kind == 0 else vals[k] for kind, k in self.outputs]
