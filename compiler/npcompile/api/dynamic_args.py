"""Python float arguments as run-time values of a jitted function's compiled program.

A replay plan (api/replay.py) is keyed by the values of scalar arguments: traced, a
Python float is a constant of the graph. A function called with a new `alpha`, `dt` or
`t` at every call was traced and compiled again at every call (1.5 ms against NumPy's
20 us for `np.sin(a) * s + 1`), and a path choice never settled, one key per value.

So, once a function has a plan and is called again with other values of its float
arguments alone, it is traced once more with those arguments handed in as 0-d float64
arrays, traced as NumPy scalars: the graph reads them as inputs, and its plan, keyed
by their dtype and shape, replays for every value. That is what a loop body does with
its carried numbers, and trace/loop_values.py's rules decide here too whether a NumPy
scalar does what the Python float did (promotion with every operand in float64, bool,
int64 or complex128, no Python division, no graph break on it, no float handed back);
where they refuse, the call is traced as written, and calls like it stay keyed by value.

Only positional Python floats: an int is a size, a count or an index more often than
not, and what it steers (shapes, `range(n)`) is not a value of the graph."""
import types

import numpy as np

from ..trace.loop_values import Spec
from .replay import arg_key


# builtins that tell a NumPy scalar from a Python float, or show it differently: a
# function naming one of them (or a helper of its that does) keeps its floats by value
# (`if isinstance(s, float)` would take the other branch, silently)
_INTROSPECTIVE = frozenset(("isinstance", "type", "issubclass", "hasattr", "getattr",
                            "callable", "id", "repr", "str", "format", "vars", "dir"))


def introspects(fn, depth=0):
    """Does fn (its nested code, and the plain functions its globals name, two levels
    down) name a builtin that tells a NumPy scalar from a float?"""
    stack, seen = [fn.__code__], set()
    while stack:
        code = stack.pop()
        if id(code) in seen:
            continue
        seen.add(id(code))
        if _INTROSPECTIVE.intersection(code.co_names):
            return True
        stack.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
        if depth < 2:
            for name in code.co_names:
                g = fn.__globals__.get(name)
                if type(g) is types.FunctionType and g is not fn and introspects(g, depth + 1):
                    return True
    return False


def float_positions(args):
    """Positions of the Python float arguments."""
    return tuple(i for i, a in enumerate(args) if type(a) is float)


def masked(key, positions):
    """An argument key with the values of these float arguments left out."""
    key = list(key)
    for i in positions:
        key[i] = (float, "run-time value")
    return tuple(key)


class DynamicFloats:
    """What one jitted function learned of its float arguments, per masked key: the
    positions it takes as run-time values, or why it cannot."""

    __slots__ = ("state", "first", "fn", "_off")

    def __init__(self, fn):
        self.state = {}     # masked key -> positions (a tuple), or a refusal (a str)
        self.first = {}     # masked key -> the key of the first call that made a plan
        self.fn = fn
        self._off = None    # whether fn tells floats apart (introspects), asked once

    @property
    def off(self):
        if self._off is None:
            self._off = type(self.fn) is not types.FunctionType or introspects(self.fn)
        return self._off

    def choice_key(self, key, args):
        """The path choice's key: without the values of run-time float arguments."""
        if not self.state or type(key) is not tuple or key[:1] == ("coarse",):
            return key
        pos = float_positions(args)
        if not pos:
            return key
        mk = masked(key, pos)
        return mk if type(self.state.get(mk)) is tuple else key

    def taken(self, key, args, kwargs, plans):
        """(args, key, values, spec) for a call whose own key has no plan, with its float
        arguments as 0-d arrays (spec: trace/loop_values.Spec of them), or None: traced
        as it is. Tried where another value of them made a plan (a call of this
        function that replays: the watch found it free of effects the graph does not
        record, so a refusal, which comes before anything runs, repeats none)."""
        pos = float_positions(args)
        if not pos or self.off:
            return None
        mk = masked(key, pos)
        got = self.state.get(mk)
        if isinstance(got, str):
            return None
        if got is None:
            first = self.first.get(mk)
            if first is None or first == key or first not in plans:
                return None
        dargs = tuple(np.array(a, np.float64) if i in pos else a for i, a in enumerate(args))
        dkey, values = arg_key(dargs, kwargs)
        if dkey is None:
            return None
        return dargs, dkey, values, Spec(pos)

    def kept(self, key, args, spec, plan):
        """After a traced call: what it says of its float arguments. `plan`: the replay
        plan the trace made (a replay.Plan), a refusal in words, or None."""
        pos = float_positions(args) if spec is None else spec.positions
        if not pos:
            return
        mk = masked(key, pos)
        if spec is None:
            if plan is not None and not isinstance(plan, str):
                self.first.setdefault(mk, key)
        elif isinstance(plan, str):
            self.state[mk] = f"its call with run-time floats does not replay: {plan}"
        elif plan is not None:
            self.state[mk] = pos

    def refused(self, key, spec, why):
        self.state[masked(key, spec.positions)] = why
