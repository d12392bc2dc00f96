"""Integer indices of writes as inputs of a graph. A loop that runs as written around an
inner loop (`for p in range(periods): <inner time loop>; section[p] = th`) traces a
graph per iteration whose write `section[p] = th` holds p as a constant: each value of
p was a new cache key, and a compile (fusion and code generation, 1-2 ms a time: 30
periods, 30 compiles; 4x the periods, 4x the compiles).

Where a call site's graph differs from its last one only in the integers of such keys,
those integers become 0-d int64 leaves the write reads (`section[np.int64(p)] = th` is
NumPy's `section[p] = th`, IndexError included), and the graph is the same for every p.
An integer index never changes a shape, so nothing compiled depends on its value; the
write is then a NumPy step (fusion/paste.py cannot take a key it does not know), which
is what a row of a larger array was anyway. Slice bounds change shapes: they stay
constants."""
import numpy as np

from .calls import update
from .node import Node, Ref

LABEL = "index"     # the leaves made here (api/replay.py keeps their values as constants)


_INT = ("int",)     # stands for any integer of a key in masked()


def masked(ops):
    """ops (signature.ops_key) with the integers of write keys masked, or None where no
    write has an integer key: graphs equal under it differ at most in those integers."""
    nodes, hit = [], False
    for op in ops[0]:
        if op[0] is update:
            key = op[3][3]     # frozen args: ('tuple', base, chain, key, fn, kw, ...)
            if type(key) is int:
                key, hit = _INT, True
            elif type(key) is tuple and key[:1] == ("tuple",) and \
                    any(type(k) is int for k in key):
                key, hit = tuple(_INT if type(k) is int else k for k in key), True
            op = op[:3] + (op[3][:3] + (key,) + op[3][4:],) + op[4:]
        nodes.append(op)
    return (tuple(nodes), ops[1]) if hit else None


def changed_keys(old_ops, new_ops):
    """The positions among the graph's pending nodes of the writes whose key integers
    differ between two graphs equal under masked()."""
    return frozenset(pos for pos, (a, b) in enumerate(zip(old_ops[0], new_ops[0]))
                     if a != b)


def as_inputs(pending, positions):
    """The new leaves after making the integers in the keys of the writes at `positions`
    inputs of their nodes (changed in place), or None (and nothing changed) where one
    of them is not such a write."""
    plans = []
    for pos in sorted(positions):
        if pos >= len(pending):
            return None
        n = pending[pos]
        if n.fn is not update or len(n.args) < 3:
            return None
        key = n.args[2]
        parts = key if type(key) is tuple else (key,)
        if not any(type(k) is int for k in parts) or any(type(k) is Ref for k in parts):
            return None
        plans.append((n, key))
    made = []
    for n, key in plans:
        inputs, ins = list(n.inputs), []

        def leaf(k):
            node = Node.leaf(np.array(k, np.int64), LABEL)
            ins.append(node)
            return Ref(len(inputs) + len(ins) - 1)
        if type(key) is tuple:
            new = tuple(leaf(k) if type(k) is int else k for k in key)
        else:
            new = leaf(key)
        n.args = n.args[:2] + (new,) + n.args[3:]
        n.inputs = tuple(inputs + ins)
        made.extend(ins)
    return made
