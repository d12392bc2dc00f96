"""The structure of a flushed graph as a hashable key, and the per-input guards
(dtype, shape with dynamic dimensions, layout) that decide cache hit or recompile."""
import numpy as np

from ..dtypes import dtype_key
from .view_step import ViewStep
from .calls import NOKEY
from .node import Ref


def collect(outputs):
    """The pending nodes reachable from outputs, in creation order, and the leaves they read."""
    seen = set()
    stack = list(outputs)
    pending, leaves = [], []
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        if n.is_leaf:
            leaves.append(n)
        else:
            pending.append(n)
            stack.extend(n.inputs)
    pending.sort(key=lambda n: n.id)
    leaves.sort(key=lambda n: n.id)
    return leaves, pending


def freeze(x):
    t = type(x)
    if t is int or t is str or t is bool or x is None:
        return x
    if t is float:
        return ("f", x.hex())
    if t is tuple or t is list:
        return (t.__name__,) + tuple(freeze(v) for v in x)
    if t is dict:
        return ("d",) + tuple(sorted((k, freeze(v)) for k, v in x.items()))
    if t is slice:
        return ("s", freeze(x.start), freeze(x.stop), freeze(x.step))
    if t is Ref:
        return ("r", x.i)
    if t is ViewStep:
        return ("v", x.fn, x.label, freeze(x.args), freeze(x.kwargs))
    if t is complex:
        return ("c", x.real.hex(), x.imag.hex())
    if isinstance(x, np.generic):
        return ("g", x.dtype.str, x.tobytes())
    if x is Ellipsis or x is NOKEY or isinstance(x, np.dtype):
        return x
    try:
        hash(x)
        return x
    except TypeError:
        return ("id", id(x))


def layout(value):
    flags = getattr(value, "flags", None)
    if flags is None or flags.c_contiguous:
        return "C"
    if flags.f_contiguous:
        return "F"
    return "strided"


def leaf_meta(leaf):
    return (leaf.label, leaf.dtype, tuple(leaf.shape), layout(leaf.value))


def ops_key(leaves, pending, outputs):
    index = {}
    for i, n in enumerate(leaves):
        index[id(n)] = i
    for i, n in enumerate(pending, len(leaves)):
        index[id(n)] = i
    ops = tuple((n.fn, n.label, tuple(index[id(i)] for i in n.inputs), freeze(n.args),
                 freeze(n.kwargs), dtype_key(n.dtype)) for n in pending)
    return ops, tuple(index[id(o)] for o in outputs)


def guarded_meta(meta, dynamic_dims):
    """A dynamic dimension enters the key as 'dyn' when it is at least 2: sizes 0 and 1
    change broadcasting and stay specialized."""
    name, dtype, shape, lay = meta
    if dynamic_dims:
        shape = tuple("dyn" if i in dynamic_dims and d >= 2 else d for i, d in enumerate(shape))
    return (dtype_key(dtype), shape, lay)
