"""Lists a compiled loop nest appends numbers to (codegen/scalar_nest.py): an iterative
solver's residual history, `history.append(np.linalg.norm(r))`.

The list is the caller's (an argument of the nest), and the loop does nothing else with
it (api/native_loop.py's scan). The nest keeps each appended number's bits in memory of
its own, grown as needed; where it finishes, the caller's list is extended with them, in
order, each of the type Python's loop would have appended (a Python float, an
np.float64, ...). Where it stops (an error or a warning NumPy would give), nothing is
appended and the Python loop runs, appending as it always did."""
import ast
import ctypes

import numpy as np

from .scalar_nest_types import PYBOOL, PYFLOAT, PYINT, U8, Unsupported, is_float, is_np, \
    is_str

_FAIL = "goto npc_fail"
SLOTS = 3       # per list: pointer, count, whether it ran
_libc = ctypes.CDLL(None)
_libc.free.argtypes = [ctypes.c_void_p]


def appended(s):
    """(list name, value) of the statement `NAME.append(value)`, else None."""
    if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call):
        f = s.value.func
        if isinstance(f, ast.Attribute) and f.attr == "append" and \
                isinstance(f.value, ast.Name) and len(s.value.args) == 1 and \
                not s.value.keywords:
            return f.value.id, s.value.args[0]
    return None


def take(nest, slots, lists):
    """Extend each list the nest appended to with its numbers (`lists`: name -> the
    caller's list), freeing their memory; slots: the nest's output array."""
    base = nest.list_base
    for j, name in enumerate(nest.sinks):
        ptr, n, ran = (int(x) for x in slots[base + SLOTS * j: base + SLOTS * (j + 1)])
        if not ptr:
            continue
        t = nest.sinks[name]
        bits = np.empty(n, _stored(t)[1])
        if n:
            ctypes.memmove(bits.ctypes.data, ptr, n * 8)
        _libc.free(ptr)
        if ran:
            lists[name].extend(_as_python(bits, t))


def free(nest, slots):
    """The memory of a nest that stopped (nothing is appended then)."""
    base = nest.list_base
    for j in range(len(nest.sinks)):
        ptr = int(slots[base + SLOTS * j])
        if ptr:
            _libc.free(ptr)


def _stored(t):
    """(C type, NumPy dtype) of the 8 bytes a number of type t is kept in: a double for
    floats (a float32 widens exactly), a uint64 for uint64, else an int64."""
    if is_float(t) or t == PYFLOAT:
        return "double", np.float64
    return ("u64", np.uint64) if t == U8 else ("i64", np.int64)


def _as_python(bits, t):
    if t == PYFLOAT:
        return [float(v) for v in bits]
    if t == PYINT:
        return [int(v) for v in bits]
    if t == PYBOOL:
        return [bool(v) for v in bits]
    return list(bits.astype(t))    # NumPy scalars of t


class ListCode:
    """Mixed into scalar_nest.Nest."""

    def _append_type(self, name, value):
        t = self._typ(value)
        if not (t in (PYINT, PYFLOAT, PYBOOL) or (is_np(t) and not is_str(t))):
            raise Unsupported(f"{name}.append of something other than a number")
        old = self.sinks.setdefault(name, t)
        if old != t:
            raise Unsupported(f"{name}.append of a {old} and a {t}")

    def _append(self, name, value, depth):
        t = self.sinks[name]
        v = self._new()
        store = _stored(t)[0]
        self._out(f"{{ const {store} {v} = ({store})({self._expr(value)});", depth)
        self._out(f"if (ln_{name} == lc_{name}) {{ const u64 c = lc_{name} ? 2 * lc_{name} : 16; "
                  f"void* g = realloc(lp_{name}, c * 8); if (!g) {_FAIL}; lp_{name} = g; "
                  f"lc_{name} = c; }}", depth + 1)
        self._out(f"__builtin_memcpy((char*)lp_{name} + 8 * ln_{name}, &{v}, 8); ++ln_{name}; }}",
                  depth + 1)

    def _list_locals(self):
        return [f"  void* lp_{n} = 0; u64 ln_{n} = 0, lc_{n} = 0;" for n in self.sinks]

    def _lists_out(self, base):
        """The tail: each list's memory handed back with its count (taken, and freed, by
        take()), where the nest finished."""
        self.list_base = base
        out = []
        for j, name in enumerate(self.sinks):
            k = base + SLOTS * j
            out.append(f"    npc_out[{k}] = (i64)lp_{name}; npc_out[{k + 1}] = (i64)ln_{name}; "
                       f"npc_out[{k + 2}] = 1;")
        return out

    def _lists_freed(self):
        return [f"  free(lp_{n});" for n in self.sinks]

