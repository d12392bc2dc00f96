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
from .context import current
from .python_numbers import int_bound

_SAME = frozenset(np.dtype(d) for d in ("bool", "int64", "float64", "complex128"))
# scalar operations whose Python result is the NumPy one for a scalar made from t
_EXACT = frozenset((np.add, np.subtract, np.multiply, np.negative, np.positive, np.absolute,
                    np.less, np.less_equal, np.greater, np.greater_equal, np.equal,
                    np.not_equal, np.minimum, np.maximum))
_DIVIDING = frozenset((np.true_divide, np.floor_divide, np.remainder, np.fmod))


class Spec:
    """What a body's Jitted is handed as loop values: the argument positions of 0-d
    arrays standing for Python numbers (the loop variable; carried numbers, `t += dt`),
    the bounds of those known (a loop variable over a range of no negative value), and the
    positions of the body's result that hand a carried number back (as a Python number
    again: api/loop_runner.py)."""

    __slots__ = ("positions", "bounds", "returns")

    def __init__(self, positions, bounds=None, returns=()):
        self.positions = tuple(positions)
        self.bounds = dict(bounds or {})    # position -> b: its values lie in [0, b]
        self.returns = frozenset(returns)


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


def derived(roots, values, bounds=None):
    """ids of the scalar nodes under `roots` that stand for Python numbers in the loop
    as written (made from the loop values by Python's operators), and the first
    reason to refuse them, or None. `bounds`: the values whose integers are known to
    lie in [0, bound] (a loop variable over a range), by position.

    A NumPy function of such a number (`np.cos(w * t)`) is a NumPy scalar in the loop
    as written too: from there on NumPy's rules hold either way, and nothing is
    checked."""
    made = {id(v) for v in values}
    # the sign each number is known to have (a power of a number in [-1, 1] by an
    # integer never negative cannot overflow; a division by a positive number cannot
    # raise), and the largest magnitude each integer can have (none: a carried int,
    # which only a small step may move on)
    sign = Signs()
    size = {}
    for k, v in enumerate(values):
        b = (bounds or {}).get(k)
        if b is not None:
            size[id(v)] = b
            sign.nonneg.add(id(v))
    for node in _nodes(roots):
        if node.is_leaf:
            continue
        uses = [k for k, x in enumerate(node.inputs) if id(x) in made]
        if not uses:
            continue
        why = _refusal(node, uses, sign) or _overflow(node, uses, size)
        if why is not None:
            return made, why
        if _python_number(node, made):
            made.add(id(node))
            sign.of(node)
    return made, None


# what Python's operators on numbers record (`-t`, `t + 1`, `t * dt`, `t < n`, and
# min/max through api/loop_picks.py): on Python numbers they make Python numbers
_OPERATORS = frozenset((np.add, np.subtract, np.multiply, np.true_divide, np.floor_divide,
                        np.remainder, np.power, operator.pow, np.negative, np.positive,
                        np.absolute, np.invert, np.less, np.less_equal, np.greater,
                        np.greater_equal, np.equal, np.not_equal, np.minimum, np.maximum))


def _python_number(node, made):
    """Does this scalar stand for a Python number (an operator on Python numbers and
    constants), not a NumPy scalar (a NumPy function, or a NumPy scalar among its
    operands)?"""
    return node.shape == () and node.fn in _OPERATORS and \
        all(id(x) in made for x in node.inputs)


class Signs:
    """Numbers known never negative, and known positive (ids), by Python's operators on
    such numbers and constants. Floats: a sum with a positive term is positive, a
    product only never negative (it may underflow to 0)."""

    def __init__(self):
        self.nonneg, self.pos = set(), set()

    def _operands(self, node):
        got = []
        for a in node.args:
            if isinstance(a, Ref):
                i = id(node.inputs[a.i])
                got.append((i in self.nonneg or i in self.pos, i in self.pos))
            elif type(a) in (int, float, bool):
                got.append((a >= 0, a > 0))
            else:
                got.append((False, False))
        return got

    def of(self, node):
        ops, fn = self._operands(node), node.fn
        if not ops:
            return
        nonneg = all(n for n, _ in ops)
        pos = False
        if fn is np.add:
            pos = nonneg and any(p for _, p in ops)
        elif fn is np.multiply:
            pos = all(p for _, p in ops) and np.dtype(node.dtype).kind in "iu"
        elif fn in (np.true_divide, np.floor_divide):
            nonneg = nonneg and len(ops) == 2 and ops[1][1]
        elif fn is not np.maximum and fn is not np.minimum:
            nonneg = False
        if nonneg:
            self.nonneg.add(id(node))
        if pos or (fn in (np.maximum, np.minimum) and all(p for _, p in ops)):
            self.pos.add(id(node))

    def positive(self, node, arg):
        """Is argument `arg` of the call known positive (a divisor that cannot be 0)?"""
        return self._operands(node)[arg][1]

    def counts(self, node, arg):
        """Is argument `arg` an integer known never negative?"""
        a = node.args[arg]
        if isinstance(a, Ref):
            x = node.inputs[a.i]
            return np.dtype(x.dtype).kind in "iu" and self._operands(node)[arg][0]
        return type(a) is int and a >= 0


_LIMIT = 2 ** 62      # an int64 whose magnitude stays below this has not overflowed
_STEP = 2 ** 31       # a carried int moved on by at most this per iteration cannot reach it


def _overflow(node, uses, size):
    """A Python int does not overflow; an int64 does. An integer made from the values
    is kept only where its magnitude provably stays in range: a loop variable's bound
    through sums, products, squares, quotients; a carried int moved on by a small
    constant (`k += 1`: 2**31 per iteration would take 2**31 iterations)."""
    if np.dtype(node.dtype).kind not in "iu" or node.shape != ():
        return None
    fn, label = node.fn, node.label or getattr(node.fn, "__name__", "an operation")
    ins = []
    for a in node.args:
        if isinstance(a, Ref):
            x = node.inputs[a.i]
            ins.append(size.get(id(x)) if a.i in uses else _int_bound(x))
        elif type(a) in (int, bool):
            ins.append(abs(int(a)))
        else:
            ins.append(None)
    known = None not in ins
    if fn in (np.add, np.subtract):
        if known:
            got = sum(ins)
        elif len(uses) == 1 and len(ins) == 2 and ins.count(None) == 1 and \
                max(b for b in ins if b is not None) <= _STEP:
            return None         # a carried counter: unbounded but never overflowing
        else:
            got = None
    elif fn is np.multiply and known:
        got = ins[0] * ins[1] if len(ins) == 2 else None
    elif fn in (np.negative, np.positive, np.absolute, np.minimum, np.maximum) and known:
        got = max(ins)
    elif fn in (np.floor_divide,) and known:
        got = ins[0] + 1
    elif fn in (np.remainder, np.fmod) and known:
        got = ins[1]
    elif fn in (np.power, operator.pow) and known and len(ins) == 2 and ins[1] == 2 \
            and not isinstance(node.args[1], Ref):
        got = ins[0] ** 2
    else:
        got = None
    if got is None or got >= _LIMIT:
        return (f"{label} of integers made from them may outgrow int64, where a Python int "
                f"does not overflow")
    size[id(node)] = got
    return None


def _int_bound(node):
    """A bound on an integer scalar input that is not a loop value: the one known for
    a Python int the graph computes (a count), else its own dtype's."""
    known = int_bound(current(), node)
    if known is not None:
        return known
    dt = np.dtype(node.dtype)
    if dt.kind == "b":
        return 1
    return max(abs(int(np.iinfo(dt).min)), int(np.iinfo(dt).max)) if dt.kind in "iu" else None


def _refusal(node, uses, sign):
    label = node.label or getattr(node.fn, "__name__", "an operation")
    dts = [x.dtype for x in node.inputs] + [node.dtype]
    odd = [d for d in dts if d is None or np.dtype(d) not in _SAME]
    if odd:
        return (f"{label} mixes a number made from them with "
                f"{odd[0] if odd[0] is not None else 'a non-array'}: NumPy promotes a "
                f"Python number and a NumPy scalar differently there")
    if node.shape != () or any(x.shape != () for x in node.inputs):
        return None
    fn = node.fn
    if fn in _DIVIDING:
        d = node.args[1] if len(node.args) > 1 else None
        if d is None or not (sign.positive(node, 1) or (
                not isinstance(d, Ref) and d != 0) or (
                isinstance(d, Ref) and d.i not in uses)):
            return (f"{label} divides by a number made from them that may be 0: Python "
                    f"raises ZeroDivisionError where NumPy warns")
        return None
    if fn is np.power or fn is operator.pow:
        return _power_refusal(node, sign, label)
    if isinstance(fn, np.ufunc) and (fn in _EXACT or fn.nin == 1):
        return None
    return (f"{label} of a number made from them: Python's arithmetic "
            f"differs from NumPy's there")


def _power_refusal(node, sign, label):
    """Python's `**` raises (OverflowError, ZeroDivisionError) or turns complex where
    NumPy's gives inf or nan; these cannot: a square (`t ** 2`), and a power of a number
    in [-1, 1] by an integer never negative (Adam's `b1 ** t`)."""
    if len(node.args) != 2:
        return f"{label} of a number made from them"
    base, exponent = node.args
    if not isinstance(exponent, Ref) and type(exponent) in (int, float) and exponent == 2:
        return None
    if isinstance(exponent, Ref) and sign.counts(node, 1) and \
            not isinstance(base, Ref) and type(base) in (int, float) and -1 <= base <= 1:
        return None
    return (f"{label} of a number made from them: Python's ** raises or turns "
            f"complex where NumPy's gives inf or nan")


def escapes(result, made, allowed=frozenset()):
    """Does the body hand back a scalar made from the loop values (a Python number in
    the loop as written), other than at the positions `allowed` of its result tuple?"""
    if type(result) is tuple and allowed:
        return any(_escapes(v, made) for k, v in enumerate(result) if k not in allowed)
    return _escapes(result, made)


def _escapes(v, made):
    if type(v) in (tuple, list):
        return any(_escapes(x, made) for x in v)
    node = getattr(v, "_n", None)
    return node is not None and node.shape == () and id(node) in made
