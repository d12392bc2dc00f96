"""Numbers of a graph that change from one flush to the next, as inputs of the graph. A
loop that runs as written (around an inner loop: `for p in range(periods): <time loop>;
section[p] = th`; or with a break on data) traces a graph per iteration, and a number of
the iteration in it (the index p, a time `t` in `u + dt * np.sin(t)`) was a constant of
that graph: each value a new cache key and a compile (fusion and code generation, 1-2 ms
a time: 4x the iterations, 4x the compiles).

Where a function's graph differs from one it flushed before only in such numbers, they
become 0-d leaves that the graph reads, and one graph serves every value:
* the integers of a write's key (`section[p] = th`, `out[p, 1] = x`): `a[np.int64(p)]`
  is NumPy's `a[p]`, IndexError included; an integer index never changes a shape, so
  nothing compiled depends on its value (slice bounds do: they stay constants). The
  write is then a NumPy step (fusion/paste.py cannot paste a box it does not know),
  which a row of a larger array was anyway.
* the value a write stores (`last[2] = p`), as a 0-d array of the written array's dtype
  (what NumPy converts it to).
* a number operand of a ufunc that does arithmetic or compares (`u + dt * t`), as a 0-d
  array of the dtype NumPy's promotion gives the operation (np.result_type of the array
  operand and the number: a weak Python number, or value-based casting under NumPy 1.x)
  and so computes it in. Powers and other ufuncs whose NumPy loop depends on the
  number's value (`x ** 2` is a square) keep their constants.
The number's value was checked by NumPy when the call was traced (an integer out of the
dtype's range raised there)."""
import warnings

import numpy as np

from ..dtypes import traced_dtype
from .calls import update
from .node import Node, Ref

LABEL = "number"    # the leaves made here (api/replay.py keeps their values as constants)

# ufuncs whose NumPy loop does not look at the value of a number operand
# (np.true_divide is np.divide, whose __name__ is "divide": `s / n` of a count n compiled
# once per n while "true_divide" alone was listed)
_ARITHMETIC = frozenset(("add", "subtract", "multiply", "divide", "true_divide", "minimum",
                         "maximum", "fmin", "fmax"))
_COMPARISONS = frozenset(("less", "less_equal", "greater", "greater_equal", "equal",
                          "not_equal"))
_NUM = ("num",)     # stands for a number in masked()


def _number(x):
    """A frozen (signature.freeze) Python int or float, or NumPy integer or float scalar
    (`np.cos(w * t)`): what a changing number looks like."""
    if type(x) is int:
        return True
    if type(x) is not tuple:
        return False
    return (len(x) == 2 and x[0] == "f") or \
        (len(x) == 3 and x[0] == "g" and x[1][1:2] in ("i", "u", "f"))


def _ufunc_operands(op):
    """Positions (in the frozen args) of the numbers of a ufunc op this module takes."""
    fn = op[0]
    if not isinstance(fn, np.ufunc) or op[4] is not None or \
            (fn.__name__ not in _ARITHMETIC and fn.__name__ not in _COMPARISONS):
        return ()
    args = op[3]
    if len(args) != 3:      # ('tuple', a, b)
        return ()
    # the other operand an array of the graph (a Ref): two numbers (np.multiply(n, n)
    # of a count) are a constant op, not this module's (fuzzer seed 5932894: a frozen
    # int was sliced)
    return tuple(i for i in (1, 2) if _number(args[i]) and type(args[3 - i]) is tuple and
                 args[3 - i][:1] == ("r",))


def _write_numbers(op):
    """Positions (in the frozen args) of a plain write's changing numbers: its key's
    integers (as ('key', i) for an element of a tuple key) and its stored value."""
    args = op[3]        # ('tuple', base, chain, key, fn, kw, c_order, value)
    out = []
    key = args[3]
    if type(key) is int:
        out.append(3)
    elif type(key) is tuple and key[:1] == ("tuple",):
        out.extend(("key", i) for i, k in enumerate(key) if i and type(k) is int)
    if len(args) == 8 and args[4] is None and _number(args[7]):
        out.append(7)
    return out


def _numbers(op):
    if op[0] is update:
        return _write_numbers(op)
    return _ufunc_operands(op)


def _frozen_at(args, at):
    return args[3][at[1]] if type(at) is tuple else args[at]


def masked(ops):
    """ops (signature.ops_key) with the numbers this module takes masked, or None where
    there are none: graphs equal under it differ at most in those numbers."""
    nodes, hit = [], False
    for op in ops[0]:
        at = _numbers(op)
        if at:
            args = list(op[3])
            key = list(args[3]) if op[0] is update and type(args[3]) is tuple else None
            for a in at:
                if type(a) is tuple:
                    key[a[1]] = _NUM
                else:
                    args[a] = _NUM
            if key is not None:
                args[3] = tuple(key)
            op = op[:3] + (tuple(args),) + op[4:]
            hit = True
        nodes.append(op)
    return (tuple(nodes), ops[1]) if hit else None


def changed(old_ops, new_ops):
    """[(position among the pending nodes, [positions of its numbers that differ])]
    between two graphs equal under masked()."""
    out = []
    for pos, (a, b) in enumerate(zip(old_ops[0], new_ops[0])):
        if a != b:
            out.append((pos, tuple(at for at in _numbers(b)
                                   if _frozen_at(a[3], at) != _frozen_at(b[3], at))))
    return tuple(out)


def described(old_ops, new_ops, where):
    """The numbers at `where` as they changed, in words: '2.0 -> 3.0'."""
    out = []
    for pos, ats in where:
        for at in ats:
            a, b = (_shown(_frozen_at(o[0][pos][3], at)) for o in (old_ops, new_ops))
            if a != b:
                out.append(f"{a} -> {b}")
    return ", ".join(out)


def _shown(x):
    if type(x) is tuple and x[0] == "f":
        return repr(float.fromhex(x[1]))
    if type(x) is tuple and x[0] == "g":
        return repr(np.frombuffer(x[2], np.dtype(x[1]))[0].item())
    return repr(x)


def merged(a, b):
    """Two lists of changed() positions as one (numbers once made inputs stay inputs)."""
    got = {pos: set(ats) for pos, ats in a}
    for pos, ats in b:
        got.setdefault(pos, set()).update(ats)
    return tuple((pos, tuple(sorted(ats, key=str))) for pos, ats in sorted(got.items()))


def as_inputs(pending, where):
    """The new leaves after making the numbers at `where` (from changed()) inputs of
    their nodes (changed in place), or None (nothing changed) where one of them cannot
    be: a node that is not what the positions say, a number its dtype does not hold."""
    plans = []
    for pos, ats in where:
        if pos >= len(pending):
            return None
        n = pending[pos]
        args, new = list(n.args), []    # node args: the frozen ones less the 'tuple' tag
        for at in ats:
            if type(at) is tuple:
                key = n.args[2]
                if type(key) is not tuple or at[1] - 1 >= len(key):
                    return None
                v = key[at[1] - 1]
                dt = _dtype_of(n, 2, v)
            else:
                v = n.args[at - 1]
                dt = _dtype_of(n, at - 1, v)
            if not (type(v) in (int, float) or isinstance(v, (np.integer, np.floating))) or \
                    dt is None:
                return None
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("error")
                    value = np.array(v, dt)
            except Exception:   # an integer the dtype does not hold (NumPy 2's Overflow)
                return None
            if value != v and not (isinstance(v, (float, np.floating)) and dt.kind == "f"):
                return None     # (a float32 operand is NumPy's rounding of it too)
            new.append((at, value))
        plans.append((n, args, new))
    made = []
    for n, args, new in plans:
        inputs = list(n.inputs)
        key = list(args[2]) if n.fn is update and type(args[2]) is tuple else None
        for at, value in new:
            leaf = Node.leaf(value, LABEL)
            ref = Ref(len(inputs))
            inputs.append(leaf)
            made.append(leaf)
            if type(at) is tuple:
                key[at[1] - 1] = ref
            else:
                args[at - 1] = ref
        if key is not None:
            args[2] = tuple(key)
        n.args = tuple(args)
        n.inputs = tuple(inputs)
    return made


def _dtype_of(n, i, v):
    """The dtype a number argument at position i of node n becomes in NumPy's operation."""
    if n.fn is update:
        if i == 2:
            return np.dtype(np.int64)       # an integer of the key
        return n.dtype                      # the stored value: the array's dtype
    other = n.args[1 - i]
    if type(other) is not Ref:
        return None
    arr = n.inputs[other.i]
    if not arr.shape and not (type(v) in (int, float) and (
            arr.dtype in (np.float64, np.complex128) or n.fn.__name__ in _ARITHMETIC)):
        # two scalars: NumPy 1.x promotes their types as for arrays (np.float32(s) / 2
        # is a float64, np.float32(s) > 0.1 compares in float64), not as result_type
        # below does. Safe: a float64 or complex128 scalar (nothing promotes past it),
        # and arithmetic, whose result dtype is checked below against the traced one
        # (a mean `s / n` of a count n compiled once per n)
        return None
    try:
        dt = np.result_type(arr.dtype, v)
    except Exception:
        return None
    if not traced_dtype(dt) or (n.fn.__name__ in _ARITHMETIC and dt != n.dtype):
        return None     # (NumPy 1.x: an int past int64 compares as an object)
    return dt
