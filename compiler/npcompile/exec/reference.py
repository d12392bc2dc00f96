"""The reference executor: replays each recorded NumPy call in order. What it computes
is by construction what eager NumPy computes; compiled backends are checked against it."""
from ..graph.recorded import call


def execute(pending, outputs):
    keep = {id(o) for o in outputs}
    uses = {}
    for n in pending:
        for i in n.inputs:
            uses[id(i)] = uses.get(id(i), 0) + 1
    vals = {}
    for n in pending:
        ins = [i.value if i.is_leaf else vals[id(i)] for i in n.inputs]
        try:
            vals[id(n)] = call(n.fn, n.args, n.kwargs, ins)
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
