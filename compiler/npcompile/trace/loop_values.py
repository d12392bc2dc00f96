"""A loop variable read as a number in a body compiled once (api/loop_rewrite.py's
IndexedSite.value_at): the body is handed `t` as a 0-d int64 array that it traces as a
NumPy scalar, so that `np.cos(w * t * dt)` is one graph with `t` an input, replayed for
every t, where the Python int made a graph (and a compile) per iteration.

A NumPy scalar is not a Python int, and this module is where the difference is
refused, before anything of the body has run (the trace is abandoned and the loop runs
as written: LoopValueRefused):
* promotion: NumPy 2 treats a Python number as weak (`x32 * t` stays float32) and a
  NumPy scalar as strong (float64). Where every operand of an op that reads a scalar
  made from t is bool, int64, float64 or complex128, weak and strong agree (under
  NumPy 1.x value-based casting too); any other dtype there is refused.
* Python's own arithmetic on numbers: a Python int does not overflow (`t * t`, `2 ** t`,
  `1 << t`) and Python raises ZeroDivisionError (`1 / t` at t = 0) where NumPy warns;
  those scalar operations are refused.
* a number the body hands back (`last = t * dt`) would be a NumPy scalar where the loop
  as written leaves a Python number: refused.
* a graph break in the body (`float(t)`, `range(t)`): the body would not replay anyway,
  and what ran before the break could not be taken back."""
import operator

import numpy as np

from ..graph.node import Ref

_SAME = frozenset(np.dtype(d) for d in ("bool", "int64", "float64", "complex128"))
# scalar operations whose Python result is the NumPy one for a scalar made from t
_EXACT = frozenset((np.add, np.subtract, np.multiply, np.negative, np.positive, np.absolute,
                    np.less, np.less_equal, np.greater, np.greater_equal, np.equal,
                    np.not_equal, np.minimum, np.maximum))
_DIVIDING = frozenset((np.true_divide, np.floor_divide, np.remainder, np.fmod))


class LoopValueRefused(BaseException):
    """The body cannot take its loop variable as a NumPy scalar (the reason in words).
    A BaseException: the user's code in the body must not catch it."""


def _nodes(roots):
    """The graph's nodes from `roots` down to its leaves, inputs before their users."""
    order, seen, stack = [], set(), [(r, False) for r in roots]
    while stack:
        node, done = stack.pop()
        if done:
            order.append(node)
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.append((node, True))
        stack.extend((x, False) for x in node.inputs if id(x) not in seen)
    return order


def derived(roots, values, nonneg=False):
    """ids of the scalar nodes under `roots` made from the loop values (leaf nodes),
    and the first reason to refuse them, or None. `nonneg`: the loop values are never
    negative (a power of a number in [-1, 1] by them cannot overflow)."""
    made = {id(v) for v in values}
    counts = set(made) if nonneg else set()     # integers never negative
    for node in _nodes(roots):
        if node.is_leaf:
            continue
        uses = [k for k, x in enumerate(node.inputs) if id(x) in made]
        if not uses:
            continue
        why = _refusal(node, uses, counts)
        if why is not None:
            return made, why
        if node.shape == ():
            made.add(id(node))
            if _keeps_count(node, counts):
                counts.add(id(node))
    return made, None


def _keeps_count(node, counts):
    """`t + 1`, `2 * t`: an integer never negative from one never negative."""
    if node.fn not in (np.add, np.multiply) or np.dtype(node.dtype).kind not in "iu":
        return False
    for a in node.args:
        if isinstance(a, Ref):
            if id(node.inputs[a.i]) not in counts:
                return False
        elif not (type(a) is int and a >= 0):
            return False
    return True


def _refusal(node, uses, counts):
    label = node.label or getattr(node.fn, "__name__", "an operation")
    dts = [x.dtype for x in node.inputs] + [node.dtype]
    odd = [d for d in dts if d is None or np.dtype(d) not in _SAME]
    if odd:
        return (f"{label} mixes a number made from the loop variable with "
                f"{odd[0] if odd[0] is not None else 'a non-array'}: NumPy promotes a "
                f"Python number and a NumPy scalar differently there")
    if node.shape != () or any(x.shape != () for x in node.inputs):
        return None
    fn = node.fn
    if fn in _DIVIDING:
        d = node.args[1] if len(node.args) > 1 else None
        if (d.i in uses) if isinstance(d, Ref) else (d is None or d == 0):
            return (f"{label} divides by a number made from the loop variable (or by 0): "
                    f"Python raises ZeroDivisionError where NumPy warns")
        return None
    if fn is np.power or fn is operator.pow:
        return _power_refusal(node, counts, label)
    if fn is np.multiply and np.dtype(node.dtype).kind in "iu" and len(uses) > 1:
        return (f"{label} multiplies two integers made from the loop variable: a Python "
                f"int does not overflow")
    if isinstance(fn, np.ufunc) and (fn in _EXACT or fn.nin == 1):
        return None
    return (f"{label} of a number made from the loop variable: Python's arithmetic "
            f"differs from NumPy's there")


def _power_refusal(node, counts, label):
    """Python's `**` raises (OverflowError, ZeroDivisionError) or turns complex where
    NumPy's gives inf or nan; these cannot: a square (`t ** 2`), and a power of a number
    in [-1, 1] by an integer never negative (Adam's `b1 ** t`)."""
    if len(node.args) != 2:
        return f"{label} of a number made from the loop variable"
    base, exponent = node.args
    if not isinstance(exponent, Ref) and type(exponent) in (int, float) and exponent == 2:
        return None
    if isinstance(exponent, Ref) and id(node.inputs[exponent.i]) in counts and \
            not isinstance(base, Ref) and type(base) in (int, float) and -1 <= base <= 1:
        return None
    return (f"{label} of a number made from the loop variable: Python's ** raises or turns "
            f"complex where NumPy's gives inf or nan")


def escapes(result, made):
    """Does the body hand back a scalar made from the loop variable (a Python number in
    the loop as written)?"""
    if type(result) in (tuple, list):
        return any(escapes(v, made) for v in result)
    node = getattr(result, "_n", None)
    return node is not None and node.shape == () and id(node) in made
