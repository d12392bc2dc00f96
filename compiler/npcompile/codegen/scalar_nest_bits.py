"""Bitwise operators in a compiled loop nest (codegen/scalar_nest.py): & | ^ << >> and ~
of integers and bools, as the Python loop computes them (`(rule >> pattern) & 1`,
`h ^= x[i]`, `n >> 1`, `~mask`). Their types are arith()'s (scalar_nest_types.py).

Python ints are unbounded: a left shift past int64 stops the nest (the Python loop gives
the big int), and a negative shift count stops it too (Python's ValueError). NumPy's
fixed-width shifts never warn: a count past the width (or negative) gives 0, or -1 for a
right shift of a negative number, as NumPy's own loops do."""
from .scalar_nest_types import B1, CT, PYBOOL, PYINT, Unsupported, arith, is_np

_FAIL = "goto npc_fail"


class BitCode:
    """Mixed into scalar_nest.Nest."""

    def _bitop(self, a, ta, b, tb, op):
        t = arith(ta, tb, op)
        if t in (B1, PYBOOL):          # of two bools: logical
            return f"((bool)({a}) {op} (bool)({b}))"
        C = CT[t]
        x, y = self._new(), self._new()
        pre = f"const {C} {x} = {self._operand_as(a, ta, t)}, {y} = {self._operand_as(b, tb, t)};"
        if op in "&|^":
            return f"({{ {pre} ({C})({x} {op} {y}); }})"
        if not is_np(t):               # Python ints
            if op == "<<":
                return (f"({{ {pre} if ({y} < 0) {_FAIL}; i64 r = 0; if ({x} != 0) {{ "
                        f"if ({y} > 62) {_FAIL}; r = (i64)((u64){x} << {y}); "
                        f"if ((r >> {y}) != {x}) {_FAIL}; }} r; }})")
            return (f"({{ {pre} if ({y} < 0) {_FAIL}; "
                    f"{y} > 63 ? ({x} < 0 ? (i64)-1 : (i64)0) : ({x} >> {y}); }})")
        bits = 8 * t.itemsize
        unsigned = f"u{bits}"
        if op == "<<":
            return f"({{ {pre} ((u64){y} < {bits}) ? ({C})(({unsigned}){x} << {y}) : ({C})0; }})"
        return (f"({{ {pre} ((u64){y} < {bits}) ? ({C})({x} >> {y}) : "
                f"({x} < 0 ? ({C})-1 : ({C})0); }})")

    def _invert(self, a, t):
        """~x: -x - 1 of a Python int, the bits of a NumPy integer, not of a NumPy bool."""
        if t == B1:
            return f"(!({a}))"
        if t == PYBOOL or not (t == PYINT or (is_np(t) and t.kind in "iu")):
            raise Unsupported(f"~ of a {t}")
        return f"(({CT[t]})~({CT[t]})({a}))"
