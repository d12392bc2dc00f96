"""The reference executor: replays each recorded NumPy call in order. What it computes
is by construction what eager NumPy computes; compiled backends are checked against it."""
from ..graph.node import substitute


def execute(pending, outputs):
    keep = {id(o) for o in outputs}
    uses = {}
    for n in pending:
        for i in n.inputs:
            uses[id(i)] = uses.get(id(i), 0) + 1
    vals = {}
    for n in pending:
        ins = [i.value if i.is_leaf else vals[id(i)] for i in n.inputs]
        kwargs = substitute(n.kwargs, ins) if n.kwargs else {}
        try:
            vals[id(n)] = n.fn(*substitute(n.args, ins), **kwargs)
        except Exception as e:
            # NumPy's error, raised here as eagerly: what ran before it stays computed
            # (the tracer lands the in-place writes that came first)
            e.npc_partial = vals
            raise
        for i in n.inputs:  # free intermediates as soon as their last reader ran
            k = id(i)
            uses[k] -= 1
            if uses[k] == 0 and k not in keep and k in vals:
                del vals[k]
    return [o.value if o.is_leaf else vals[id(o)] for o in outputs]


class Recorded:
    """A graph of views only (not worth a compile: exec/engine.cpu_worthy), run on the
    reference path and kept as its calls, so that a plan of steps (api/step_plan.py) can
    run it again on other leaf values: `row = A[i]` before `np.unique(row)` is such a
    graph. run_values is execute() on the leaves given, in `leaves` order."""

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
            got = [leaf_values[k] if kind == 0 else vals[k] for kind, k in ins]
            vals.append(fn(*substitute(args, got), **(substitute(kwargs, got) if kwargs
                                                       else {})))
        return [leaf_values[k] if kind == 0 else vals[k] for kind, k in self.outputs]
