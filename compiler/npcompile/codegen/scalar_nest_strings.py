"""Fixed-width strings in a compiled loop nest (codegen/scalar_nest.py): the elements of
<Un and Sn arrays, and str and bytes constants, compared with == and != as the Python
loop compares them: `a[i - 1] == b[j - 1]`, `seq[k] == "G"` (DNA and text DP code).

An element of such an array is a np.str_ (np.bytes_) holding the element without its
trailing NULs, and == of two is Python's str (bytes) equality: a Python bool. Two
fixed-width strings are equal that way exactly when they are equal padded with NULs to
one width, which is what npc_streq compares, code unit by code unit (UCS4 for <U, bytes
for S). A str next to bytes, a string next to a number, ordering comparisons, strings
held in variables or stored: refused (the Python loop runs)."""
import ast

import numpy as np

from .scalar_nest_types import Unsupported, is_str

HELPERS = """\
// fixed-width strings equal as NumPy's scalars compare them: padded with NULs to one width
template <typename C>
static inline bool npc_streq(const C* a, i64 na, const C* b, i64 nb) {
  const i64 n = na < nb ? na : nb;
  for (i64 k = 0; k < n; ++k) if (a[k] != b[k]) return false;
  for (i64 k = n; k < na; ++k) if (a[k]) return false;
  for (i64 k = n; k < nb; ++k) if (b[k]) return false;
  return true;
}
"""


def constant_type(v):
    """The dtype a str or bytes constant compares as, or None for other constants."""
    if type(v) is str:
        return np.dtype(f"<U{len(v)}")
    if type(v) is bytes:
        return np.dtype(f"S{len(v)}")
    return None


def compare_type(ts, ops):
    """The type of a comparison chain whose operands (of types ts) include a string."""
    kinds = {t.kind if is_str(t) else None for t in ts}
    if len(kinds) != 1:
        raise Unsupported("a comparison of a string with a number, or of str with bytes")
    if any(not isinstance(op, (ast.Eq, ast.NotEq)) for op in ops):
        raise Unsupported("an ordering comparison of strings (only == and != are compiled)")


class StringCode:
    """Mixed into scalar_nest.Nest: string operands and their comparisons."""

    def _str_operand(self, e):
        """(C pointer to its first code unit, number of code units) of a string operand."""
        t = self._type(e)
        unit = "u32" if t.kind == "U" else "u8"
        width = t.itemsize // (4 if t.kind == "U" else 1)
        if isinstance(e, ast.Constant):
            if width == 0:
                return "(const u8*)0" if unit == "u8" else "(const u32*)0", 0
            name = self._new()
            units = [ord(c) for c in e.value] if unit == "u32" else list(e.value)
            self.constants.append(f"static const {unit} {name}[] = {{{', '.join(map(str, units))}}};")
            return name, width
        if not isinstance(e, ast.Subscript):
            raise Unsupported("a string held in a variable")
        return f"((const {unit}*)({self._element_addr(e)}))", width

    def _str_compare(self, left, op, right):
        (a, na), (b, nb) = self._str_operand(left), self._str_operand(right)
        eq = f"npc_streq({a}, {na}, {b}, {nb})"
        return eq if isinstance(op, ast.Eq) else f"(!{eq})"
