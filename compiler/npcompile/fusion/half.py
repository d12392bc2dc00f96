"""float16 in kernels, computed as NumPy computes it: NumPy's half-precision loops convert
their operands to float32, run the float32 operation and round the result to float16
(round to nearest even), one operation at a time; its casts to float16 go through
float32, except from float64, which rounds directly. So a kernel holds float16 only in
memory and in moves (loads, views, concatenations, gathers, a where's selection); every
operation on it is the float32 one between a widening and a rounding cast. The renderers
then need three conversions (float16 -> float32, float32 -> float16, float64 ->
float16: codegen/cpp_half.py) and nothing else.

Reductions and scans of float16 stay NumPy's steps: NumPy rounds its float32 partial
sums to float16 at the edges of its buffered chunks, an order no kernel repeats."""
import numpy as np

from .expr_nodes import Expr

F2 = np.dtype(np.float16)
F4 = np.dtype(np.float32)
F8 = np.dtype(np.float64)
# Expr kinds that move float16 values without computing on them
_MOVES = ("load", "view", "concat", "gather")


class NotHalf(Exception):
    """This float16 node has no exact kernel form: it runs in NumPy."""


def involved(node_dtype, ins):
    """Does a node of this dtype with these input Exprs touch float16?"""
    return node_dtype == F2 or any(getattr(x, "dtype", None) == F2 for x in ins)


def lowered(e, ins):
    """e, the Expr of one node, with its float16 arithmetic done in float32 and rounded
    after each operation; the Exprs of the node's inputs (ins) are already so."""
    stop = {id(x) for x in ins if x is not None}
    return _walk(e, stop, {})


def _walk(e, stop, done):
    if id(e) in stop:
        return e
    got = done.get(id(e))
    if got is None:
        e.inputs = [_walk(x, stop, done) for x in e.inputs]
        got = done[id(e)] = _rewrite(e)
    return got


def _to(x, dtype, node=None):
    return Expr("cast", None, [x], x.shape, dtype, node=node)


def _rewrite(e):
    if e.dtype != F2 and all(x.dtype != F2 for x in e.inputs):
        return e
    kind = e.kind
    if kind in _MOVES or (kind == "pw" and e.op == "where"):
        return e
    if kind == "const":
        # the value NumPy writes into a float16 array, held exactly by a float32 constant
        value = np.float32(np.asarray(e.op).astype(F2)[()])
        return _to(Expr("const", value, [], e.shape, F4), F2, e.node)
    if kind == "cast":
        x = e.inputs[0]
        if x.dtype == e.dtype or (e.dtype == F2 and x.dtype in (F4, F8)) or \
                (x.dtype == F2 and e.dtype == F4):
            return e
        return _to(_to(x, F4), e.dtype, e.node)
    if kind == "pw":
        ins = [_to(x, F4) if x.dtype == F2 else x for x in e.inputs]
        if e.dtype == F2:
            return _to(Expr("pw", e.op, ins, e.shape, F4, e.attrs), F2, e.node)
        return Expr("pw", e.op, ins, e.shape, e.dtype, e.attrs, node=e.node)
    raise NotHalf(kind)
