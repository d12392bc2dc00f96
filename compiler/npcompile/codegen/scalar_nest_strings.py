"""Fixed-width strings in a compiled loop nest (codegen/scalar_nest.py): the elements of
<Un and Sn arrays, and str and bytes constants, compared with == and != as the Python
loop compares them: `a[i - 1] == b[j - 1]`, `seq[k] == "G"` (DNA and text DP code).

An element of such an array is a np.str_ (np.bytes_) holding the element without its
trailing NULs, and == of two is Python's str (bytes) equality: a Python bool. Two
fixed-width strings are equal that way exactly when they are equal padded with NULs to
one width, which is what npc_streq compares, code unit by code unit (UCS4 for <U, bytes
for S). Str and bytes arguments are passed as such buffers; a variable may hold a string
inside the loop (`ch = seq[i]`) as where it lies (string arrays are never written by a
nest). A str next to bytes, a string next to a number, ordering comparisons, strings
stored into arrays or read after the loop: refused (the Python loop runs)."""
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
    """The dtype a str or bytes constant or argument (np.str_ and np.bytes_ too) compares
    as, or None for other values. One that ends in NUL is refused: Python compares it
    as it is, to elements that never end in one, where npc_streq would pad."""
    if not isinstance(v, (str, bytes)):
        return None
    if v[-1:] in ("\0", b"\0"):
        raise Unsupported("a string that ends in NUL")
    return np.dtype(f"<U{len(v)}" if isinstance(v, str) else f"S{len(v)}")


def buffer(v, t):
    """A string argument's code units, for the nest to read (at least one element)."""
    return np.array(v, t) if t.itemsize else np.zeros(1, np.uint32)


def check_binding(name, t, given, old, outputs):
    """A variable may hold a string element or constant (`ch = seq[i]`), of one dtype,
    inside the loop only: the nest keeps where it is, not a Python object."""
    if name in outputs:
        raise Unsupported(f"{name}, a string, is read after the loop")
    if given is not None or (old is not None and old != t):
        raise Unsupported(f"{name} holds a string and something else")


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
        if isinstance(e, ast.Name):     # a string argument or variable
            return f"((const {unit}*)v_{e.id})", width
        if isinstance(e, ast.Constant):
            if width == 0:
                return "(const u8*)0" if unit == "u8" else "(const u32*)0", 0
            name = self._new()
            units = [ord(c) for c in e.value] if unit == "u32" else list(e.value)
            self.constants.append(f"static const {unit} {name}[] = {{{', '.join(map(str, units))}}};")
            return name, width
        if not isinstance(e, ast.Subscript):
            raise Unsupported(f"a string from a {type(e).__name__} expression")
        return f"((const {unit}*)({self._element_addr(e)}))", width

    def _str_compare(self, left, op, right):
        (a, na), (b, nb) = self._str_operand(left), self._str_operand(right)
        eq = f"npc_streq({a}, {na}, {b}, {nb})"
        return eq if isinstance(op, ast.Eq) else f"(!{eq})"
