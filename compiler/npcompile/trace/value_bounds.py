"""Bounds on the integer values a traced array can hold, from how it was made alone
(never from its values): a bool is 0 or 1, a uint8 at most 255, np.clip(i, 0, n - 1)
within [0, n - 1], argmax along an axis of 5 within [0, 4], i % k within [0, k - 1].

They let a function whose result length is max(x) + 1 have a known shape where the
program bounds x below the length it asks for: np.bincount(labels, minlength=k) of
labels from an argmin over k centroids, of bins clipped to [0, nbins - 1], of uint8
pixels with minlength=256. A bound is sure or absent (None): anything not known to be
bounded (a float cast to int, a sum that could overflow) has its dtype's range."""
import inspect
import operator
import weakref

import numpy as np

from ..graph import calls
from ..graph.node import Ref
from ..ops import VIEW_LABELS

_DEPTH = 24     # nodes followed back; past that, the dtype's range


def int_bounds(node, depth=_DEPTH, tracer=None):
    """(lo, hi) with lo <= every value <= hi, for a node of a bool or integer dtype;
    None for other dtypes. Given the tracer, a concrete array's values are read for
    their least and largest (kNN's labels, an argument gathered by the neighbours'
    indices): the call then depends on its values, and says so (tracer.read_value)."""
    dt = node.dtype
    if dt is None or dt.kind not in "biu":
        return None
    whole = (0, 1) if dt.kind == "b" else (int(np.iinfo(dt).min), int(np.iinfo(dt).max))
    if node.is_leaf:
        return whole if tracer is None or dt.kind == "b" else _read(node, whole, tracer)
    if depth == 0 or dt.kind == "b":
        return whole
    got = _made(node, depth - 1, tracer)
    if got is None:
        return whole
    lo, hi = got
    return (max(lo, whole[0]), min(hi, whole[1]))  # (a cast into dt wraps: see _made)


_READ = weakref.WeakKeyDictionary()    # leaf node -> its values' bounds, read once


def _read(node, whole, tracer):
    value = node.value
    if type(value) is not np.ndarray or not value.size:
        return whole
    try:
        got = _READ.get(node)
    except TypeError:       # a node type without weak references: read every time
        got = None
    if got is None:
        got = (int(value.min()), int(value.max()))
        try:
            _READ[node] = got
        except TypeError:
            pass
    tracer.read_value("the largest value of an array bounds a result's length "
                      "(np.bincount)")
    return got


def _operand(node, arg, depth, tracer):
    """Bounds of an argument of node's call: a Ref to an input, or a constant."""
    if type(arg) is Ref:
        return int_bounds(node.inputs[arg.i], depth, tracer)
    if isinstance(arg, (bool, np.bool_)):
        return (int(arg), int(arg))
    if isinstance(arg, (int, np.integer)):
        return (int(arg), int(arg))
    return None


def _fits(bounds, dt):
    """bounds, where every value in them is one of dt's (a cast keeps them), else None."""
    if bounds is None or dt.kind not in "biu":
        return None
    lo, hi = (0, 1) if dt.kind == "b" else (int(np.iinfo(dt).min), int(np.iinfo(dt).max))
    return bounds if lo <= bounds[0] and bounds[1] <= hi else None


def _union(a, b):
    if a is None or b is None:
        return None
    return (min(a[0], b[0]), max(a[1], b[1]))


def _index_range(node):
    """[0, n - 1] for indices along the call's axis (of the flattened array where the
    axis is None); None where the call's arguments do not bind as NumPy's would."""
    sig = _SIGNATURES.get(node.fn)
    if sig is None:
        sig = _SIGNATURES[node.fn] = inspect.signature(node.fn)
    try:
        bound = sig.bind(*node.args, **(node.kwargs or {}))
    except TypeError:
        return None
    bound.apply_defaults()
    shape, axis = node.inputs[0].shape, bound.arguments.get("axis")
    if axis is None:
        n = int(np.prod(shape))
    elif type(axis) is int and -len(shape) <= axis < len(shape):
        n = shape[axis]
    else:
        return None
    return (0, max(n - 1, 0))


_SIGNATURES = {}


def _made(node, depth, tracer):
    """Bounds from node's call, or None where the call is not one that bounds."""
    fn, args, dt = node.fn, node.args, node.dtype
    if node.label in VIEW_LABELS or node.label == "gather" or fn in _SUBSETS:
        # the values are some of input 0's (views, copies, gathers, sorts)
        return _fits(int_bounds(node.inputs[0], depth, tracer), dt)
    if fn is calls.astype:
        return _fits(int_bounds(node.inputs[0], depth, tracer), dt)
    if fn in (calls.update, calls.update_reusing):
        written = args[6] if len(args) > 6 and args[3] is None else None
        if written is None:
            return None     # ufunc.at, fill_diagonal, **=: what they write is not bounded
        return _fits(_union(int_bounds(node.inputs[0], depth, tracer),
                            _operand(node, written, depth, tracer)), dt)
    if fn is np.clip:
        x = _operand(node, args[0], depth, tracer)
        lo = None if len(args) < 2 or args[1] is None else \
            _operand(node, args[1], depth, tracer)
        hi = None if len(args) < 3 or args[2] is None else \
            _operand(node, args[2], depth, tracer)
        if x is None or (len(args) > 1 and args[1] is not None and lo is None) or \
                (len(args) > 2 and args[2] is not None and hi is None):
            return None
        if lo is not None:      # maximum(x, lo)
            x = (max(x[0], lo[0]), max(x[1], lo[1]))
        if hi is not None:      # then minimum(., hi)
            x = (min(x[0], hi[0]), min(x[1], hi[1]))
        return _fits(x, dt)
    if fn in _ARG_INDEX:
        return _fits(_index_range(node), dt)
    if fn is np.where and len(args) == 3:
        return _fits(_union(_operand(node, args[1], depth, tracer),
                            _operand(node, args[2], depth, tracer)), dt)
    rule = _ARITHMETIC.get(fn)
    if rule is not None and len(args) == 2 and not node.kwargs:
        a, b = _operand(node, args[0], depth, tracer), _operand(node, args[1], depth, tracer)
        if a is None or b is None:
            return None
        return _fits(rule(a, b), dt)   # out of dt's range: it may have wrapped, no bound
    return None


def _corners(op):
    def rule(a, b):
        c = [op(x, y) for x in a for y in b]
        return (min(c), max(c))
    return rule


def _remainder(a, b):
    """NumPy's integer remainder takes the divisor's sign (by zero it gives 0: no bound
    where the divisor may be zero)."""
    if b[0] > 0:
        if a[0] < 0:
            return (0, b[1] - 1)
        return (0 if a[1] >= b[0] else a[0], min(a[1], b[1] - 1))
    if b[1] < 0:
        return (b[0] + 1, 0)
    return None


def _floor_divide(a, b):
    if b[0] > 0:    # a monotonic in each argument away from zero divisors
        return _corners(operator.floordiv)(a, b)
    return None


_ARITHMETIC = {
    np.add: _corners(operator.add), operator.add: _corners(operator.add),
    np.subtract: _corners(operator.sub), operator.sub: _corners(operator.sub),
    np.multiply: _corners(operator.mul), operator.mul: _corners(operator.mul),
    np.maximum: _corners(max), np.minimum: _corners(min),
    np.remainder: _remainder, operator.mod: _remainder,
    np.floor_divide: _floor_divide, operator.floordiv: _floor_divide,
}
# index results: within [0, n - 1] along the axis they index (or the flattened array)
_ARG_INDEX = (np.argmax, np.argmin, np.argsort, np.argpartition)
# results whose values are some of their first input's
_SUBSETS = (calls.copy, calls.flatten, np.sort, np.partition, np.ravel, np.reshape, np.take,
            np.roll, np.flip, np.transpose, np.repeat, np.tile, np.amax, np.amin, np.max,
            np.min)
