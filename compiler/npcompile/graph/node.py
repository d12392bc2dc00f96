"""One node of a captured graph: a NumPy call whose array arguments are other nodes.

A node records the exact NumPy callable and its arguments, with `Ref(i)` standing for
its i-th input node. The reference executor replays that call, so what it computes is
what eager NumPy computes; the fusion compiler lowers the same record to primitives.
"""
import itertools

from ..trace_core import core

_ids = itertools.count(1)


class Ref:
    """Placeholder for the i-th input node inside an argument template."""

    __slots__ = ("i",)

    def __init__(self, i):
        self.i = i

    def __eq__(self, other):
        return type(other) is Ref and other.i == self.i

    def __hash__(self):
        return hash(("Ref", self.i))

    def __repr__(self):
        return f"%{self.i}"


class Node:
    """A value in the graph. `fn is None` marks a leaf, whose `value` is concrete."""

    __slots__ = ("id", "fn", "args", "kwargs", "inputs", "dtype", "shape", "value",
                 "label", "site", "__weakref__")

    def __init__(self, fn, args, kwargs, inputs, dtype, shape, label, site=None, value=None):
        self.id = next(_ids)
        self.fn = fn
        self.args = args
        self.kwargs = kwargs
        self.inputs = inputs
        self.dtype = dtype
        self.shape = shape
        self.label = label
        self.site = site
        self.value = value

    @staticmethod
    def leaf(value, label="input"):
        return Node(None, (), None, (), value.dtype, value.shape, label, value=value)

    @property
    def is_leaf(self):
        return self.fn is None

    def make_concrete(self, value):
        """After execution the node becomes a leaf holding its value; its history is
        dropped so that later graphs start from here and nothing is recomputed."""
        self.fn = None
        self.args = ()
        self.kwargs = None
        self.inputs = ()
        self.value = value

    def __repr__(self):
        return f"Node({self.id}, {self.label}, {self.dtype}, {self.shape})"


if core is not None:  # the same fields as a C type (compiler/trace_core/NodeObject.hpp)
    Node = core.Node  # noqa: F811


def substitute(template, values):
    """Replace every Ref in a (nested tuple/list/dict) template by values[i]."""
    t = type(template)
    if t is Ref:
        return values[template.i]
    if t is tuple:
        return tuple(substitute(x, values) for x in template)
    if t is list:
        return [substitute(x, values) for x in template]
    if t is dict:
        return {k: substitute(v, values) for k, v in template.items()}
    return template


def map_leaves(obj, fn):
    """obj with fn applied to every leaf of its nested tuples, lists and dicts."""
    t = type(obj)
    if t is tuple or t is list:
        return t(map_leaves(x, fn) for x in obj)
    if t is dict:
        return {k: map_leaves(v, fn) for k, v in obj.items()}
    return fn(obj)


def contains(template, pred):
    """Does pred hold for some leaf of a (nested tuple/list/dict) template?"""
    t = type(template)
    if t is tuple or t is list:
        return any(contains(x, pred) for x in template)
    if t is dict:
        return any(contains(x, pred) for x in template.values())
    return pred(template)
