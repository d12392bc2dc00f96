"""A loop nest of scalar code (`for i in range(n): for j in range(m): C[i, j] = ...`) as
one C++ function: element reads and writes, Python and NumPy scalar arithmetic, math
functions, if/break/continue, raise (a stop). Traced, such a loop is one graph node per element; run by
Python it is ~100 ns per operation; compiled it is a few instructions.

Types follow what the Python loop would compute, value by value:
* Python ints, floats and bools (loop variables, constants, scalar arguments), and NumPy
  scalars of bool, every integer width signed and unsigned, float32 and float64
  (elements of arrays of those dtypes, NumPy scalar arguments, np.int8(x) and the like).
  A binary operation on a NumPy scalar and a Python number follows the NumPy that
  runs: under 2.x it keeps the NumPy dtype (a float makes an integer dtype float64; a
  Python int that does not fit it is NumPy's OverflowError), under 1.x the number counts
  as int64 or float64 (np.int32(3) * 2 is an int64 there); two NumPy scalars promote as
  NumPy does, and compare by value (not as C, which would make a signed side unsigned).
  Bitwise operators: scalar_nest_bits.py. Elements of fixed-width string arrays, str
  and bytes: compared only (scalar_nest_strings.py). Slices: scalar_nest_vectors.py.
* Whatever would raise or warn in Python or NumPy does not happen here: the function
  stops (status 1), the caller puts back the arrays it wrote and runs the Python loop,
  which then raises or warns as it always did. That is: an index out of bounds,
  integer overflow (Python ints are unbounded; NumPy's wrap with a warning), division
  or modulo by zero, a float-to-int conversion of nan/inf or out of range, a negative
  number to a fractional power, and (status 2, read from the SSE flags) any floating
  invalid/divide-by-zero/overflow exception (sqrt(-1), log(0), exp(1000)).
* A variable has one type in the loop: its type at the first assignment, where a
  number given from outside may become a NumPy scalar once (`s = 0.0` before
  `s += A[i]`), as it would after the first iteration. Anything else is refused
  (Unsupported) and the Python loop runs.

The function is extern "C" void f(char** bufs, const i64* P, i64, i64), the CPU
backend's calling convention: bufs[0] is the output slots (status, then value bits and
an assigned flag per output name), bufs[1..] the arrays; P their sizes and byte strides,
then the scalar arguments' bits."""
import ast
import copy
import functools
import hashlib
import math

import struct

import numpy as np

from .cpp_ops import PRELUDE, declarations, literal
from .scalar_nest_types import (ARRAY, ARRAY_DTYPES, B1, BITS, CT as _CT, EXACT as _EXACT, F4, F8,
                                FLOAT_CT, I8, MAT, PYBOOL, PYFLOAT, PYINT, SINK, U8, VEC,
                                NEP50, Unsupported, arith, array_dtype, int_range, is_float, is_int,
                                is_np, is_str, numpy_result_type, type_of_value, UNARY_MATH)
from . import scalar_nest_iter as elements
from . import scalar_nest_strings as strings
from .scalar_nest_bits import BitCode
from . import scalar_nest_vectors as vectors
from .scalar_nest_arrays import ArrayBindings, NewArray, array_slots, take_arrays
from . import scalar_nest_predicates as predicates
from .scalar_nest_swaps import SwapCode, is_swap
from . import scalar_nest_lists as lists
from .scalar_nest_lists import ListCode, appended
from .scalar_nest_vectors import CONSTRUCTED  # noqa: F401  (api/native_loop.py's scan)
from .scalar_nest_predicates import PREDICATE_CALLS, REDUCING_CALLS, PredicateCode  # noqa: F401

# a float argument as the int64 of its bits (what P carries)
_F8, _F8_BITS = struct.Struct("<d"), struct.Struct("<q")
# how pack() and unpack() take a value (Nest._packing, Nest._unpacking)
_SKIP, _BUF, _STR, _FLOAT, _UINT, _INT = (object() for _ in range(6))

_BINARY = {"atan2": "atan2", "arctan2": "atan2", "hypot": "hypot", "copysign": "copysign"}
# np.int32(x), np.float64(x), ...: a number cast as NumPy's setitem casts it
CONSTRUCTORS = {n: np.dtype(n) for n in ("float64", "float32", "int64", "int32", "int16", "int8",
                                         "uint64", "uint32", "uint16", "uint8")}
# math.pi, np.inf, ...: Python floats
CONSTANTS = ("pi", "e", "inf", "nan", "tau")
_CMP = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}
_ARITH = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
          ast.Mod: "%", ast.Pow: "**", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^",
          ast.LShift: "<<", ast.RShift: ">>"}
_FAIL = "goto npc_fail"


class Nest(ArrayBindings, vectors.VectorCode, PredicateCode, SwapCode, ListCode,
           strings.StringCode, BitCode, elements.IterCode):
    """One loop nest's analysis (static: what it reads, binds and calls) and rendering
    for given argument types."""

    def __init__(self, loop, params, outputs, modules):
        self.loop = loop          # the ast.For
        self.params = params      # names read before being bound (arguments, in order)
        self.outputs = outputs    # names bound in the nest that code after it reads
        self.modules = modules    # names used as modules: 'np'/'math' aliases
        self.copies = {}          # array copies the nest makes: name -> source array
        self.lists = frozenset()  # lists it appends numbers to (scalar_nest_lists.py)
        self.slices = False       # whether it takes slices anywhere (a:b)

    # ----------------------------------------------------------------- rendering
    def render(self, types, arrays):
        """C++ source and symbol for these types: `types` maps every parameter to its
        type, or to ARRAY with `arrays[name] = (dtype, ndim, writable)`."""
        self.types = dict(types)
        self.arrays = dict(arrays)
        for name, src in self.copies.items():   # scratch arrays shaped as their source
            if is_str(arrays[src][0]):
                raise Unsupported(f"a copy of {src}, a string array")
            self.types[name] = ARRAY
            self.arrays[name] = (arrays[src][0], arrays[src][1], True)
        self.arrays_bound = {}    # name -> rank: bound to a new float64 array in the nest
        self.views_bound = {}     # name -> (array, rank): bound to a slice of that array
        self.sinks = {}           # list name -> the type of the numbers appended to it
        outputs = self.outputs
        while True:
            self.loop = _whole_rows(self.loop, self.types, self.arrays)
            self.locals = {}          # name -> type of variables the nest binds
            self.entry = {}           # assigned parameters: type given -> type in the nest
            self.stored_extrema = {id(s.value) for s in ast.walk(self.loop)
                                   if _stores_extremum(s)}
            self.resets = {}          # name -> T: reset to Python constants, else holding T
            try:
                self._infer()
            except NewArray:  # an array name found: its reads and op= retaken
                continue
            break
        self._check_resets()
        self._check_entry_outputs(outputs)
        # an array updated in place is not handed back: the caller's object has it; one
        # the nest binds anew is (slots after the numbers', vectors.array_slots)
        self.outputs = [n for n in outputs if self.types.get(n) is not ARRAY]
        self.array_outputs = [n for n in outputs if n in self.arrays_bound]
        self.lines = []
        self.tmp = 0
        self.scratch = []         # scratch memory of hoisted operands (vectors._scratch)
        self.view_names = {}      # a view's C pointer -> the array name it views
        self.need = set()
        self.constants = []       # static arrays the body reads (string constants)
        self._emit_stmt(self.loop, 1)
        body = "\n".join(["  " + c for c in self.constants] + self.lines)
        text = self._head() + body + "\n" + self._tail()
        sym = "npc_nest_" + hashlib.sha1(text.encode()).hexdigest()[:16]
        decl = declarations(self.need) + "\n"   # the kernels' libm and helper declarations
        source = (PRELUDE + vectors.HELPERS + strings.HELPERS + decl + f'extern "C" void {sym}(char** bufs, const i64* P, '
                  f"i64 begin, i64 end) {{\n  (void)begin; (void)end;\n{text}}}\n")
        return source, sym

    def pack(self, values):
        """(buffers after the output slots, P) for the arguments, in render()'s order."""
        bufs, P = [], []
        if self.copies:
            values = dict(values)
            for name, src in self.copies.items():   # scratch for each copy, made once
                values[name] = np.empty(values[src].shape, values[src].dtype)
        for name, kind, t in self._packing():
            v = values[name]
            if kind is _SKIP:
                continue
            if kind is _BUF:
                bufs.append(v)
                for n, st in zip(v.shape, v.strides):
                    P += (n, st)
            elif kind is _STR:
                bufs.append(strings.buffer(v, t))
            elif kind is _FLOAT:
                P.append(_F8_BITS.unpack(_F8.pack(v))[0])
            elif kind is _UINT:     # a uint64 as its bits
                P.append(int(np.uint64(v).view(np.int64)))
            else:
                P.append(int(v))
        return bufs, P

    def _packing(self):
        """[(name, kind, type)] of pack()'s arguments, worked out once: comparing a
        NumPy dtype with another type costs half a microsecond (NumPy tries to make a
        dtype of it), and a plan replays the nest at every call."""
        got = self.__dict__.get("_packed")
        if got is None:
            got = []
            for name in self.params + list(self.copies):
                t = self.types[name]
                kind = (_SKIP if t is SINK else _BUF if t is ARRAY else _STR if is_str(t)
                        else _FLOAT if _CT[t] in FLOAT_CT else _UINT if t == U8 else _INT)
                got.append((name, kind, t))
            self._packed = got
        return got

    def unpack(self, slots):
        """{name: value} of the outputs the nest assigned, typed as Python would have
        them; slots: the int64 output array after a run with status 0."""
        got = {}
        # the slots as Python numbers, read once per kind (a NumPy scalar per output cost
        # more than the nest's own run, replayed at every call of a plan)
        ints, floats, uints = slots.tolist(), None, None
        for j, name, kind, make in self._unpacking():
            if not ints[2 + 2 * j]:
                continue
            if kind is _FLOAT:
                if floats is None:
                    floats = slots.view(np.float64).tolist()
                v = floats[1 + 2 * j]
            elif kind is _UINT:     # a uint64 comes back as its bits
                if uints is None:
                    uints = slots.view(np.uint64).tolist()
                v = uints[1 + 2 * j]
            else:
                v = ints[1 + 2 * j]
            got[name] = v if make is None else make(v)
        return got

    def _unpacking(self):
        """[(slot, name, kind, what makes the value or None)] of unpack(), worked out once
        (as _packing)."""
        got = self.__dict__.get("_unpacked")
        if got is None:
            got = []
            for j, name in enumerate(self.outputs):
                t = self.type_of(name)
                kind = _FLOAT if _CT[t] in FLOAT_CT else _UINT if t == U8 else _INT
                make = bool if t == PYBOOL else None if t in (PYINT, PYFLOAT) else t.type
                got.append((j, name, kind, make))
            self._unpacked = got
        return got

    def type_of(self, name):
        t = self.locals.get(name)
        if t is None:
            t = self.types.get(name)
        if t is None:
            raise Unsupported(f"{name} has no type here")
        return t

    # ----------------------------------------------------------------- types
    def _infer(self):
        for _ in range(6):     # a fixpoint: a type found late can change earlier ones
            self.changed = False
            self._infer_stmts([self.loop])
            if not self.changed:
                return
        raise Unsupported("the variables' types do not settle")

    def _bind(self, name, t):
        if self.types.get(name) is ARRAY:
            raise Unsupported(f"{name} is an array rebound in the loop")
        if t is VEC or t is MAT:
            raise Unsupported(f"{name} is bound to a slice (a NumPy view)")
        if is_str(t):
            strings.check_binding(name, t, self.types.get(name), self.locals.get(name),
                                  self.outputs)
        old = self.locals.get(name)
        if old is None:
            given = self.types.get(name)
            if given is not None and given != t:
                if not (type_of_numeric(given) and type_of_numeric(t)):
                    raise Unsupported(f"{name} changes type in the loop")
                if is_float(given) and is_int(t):
                    raise Unsupported(f"{name} is given a float and holds ints in the loop")
                self.entry[name] = given
            self.locals[name] = t
            self.changed = True
        elif old != t:
            pair = {old, t}
            self.resets.setdefault(name, set()).update(x for x in pair if not is_np(x))
            numpy = [x for x in pair if is_np(x)]
            if name not in self.outputs and len(numpy) == 1 and numpy[0].kind in "iuf" and \
                    pair - set(numpy) <= ({PYINT, PYFLOAT} if numpy[0].kind == "f" else {PYINT}):
                # `s = 0` in an outer loop, then `s += A[i, j] * x[j]`: s holds its
                # NumPy type throughout, checked once the types settle (_check_resets)
                self.locals[name] = numpy[0]
                self.changed = self.changed or old is not numpy[0]
                return
            raise Unsupported(f"{name} is assigned a {_name(t)} and a {_name(old)}")

    def _check_entry_outputs(self, outputs):
        """A number given from outside that the nest holds as a NumPy scalar (`s = 0.0`
        before the loop, `s += A[i]` in it) is handed back as NumPy's where the nest
        assigned it, and left as it was where no assignment ran. That is Python's type
        where a statement making it NumPy's runs at every iteration (at the top of the
        loop's body) and nothing sets it to a Python number again, or where every
        assignment to it makes it NumPy's. Else (`s += x[k]` in one branch, `s += t` of
        a float in another) its type depends on which ran: refused."""
        top = {id(st) for st in getattr(self.loop, "body", [])}
        for name, given in self.entry.items():
            if name not in outputs or is_np(given):
                continue
            every, resets, keeps = False, False, False
            for st in ast.walk(self.loop):
                if isinstance(st, ast.Assign) and any(
                        isinstance(t, ast.Name) and t.id == name for t in st.targets):
                    held, self.locals[name] = self.locals[name], given     # (as Python's)
                    try:
                        python = not is_np(self._typ(st.value))
                    except Unsupported:
                        python = True
                    finally:
                        self.locals[name] = held
                    resets = resets or python
                elif isinstance(st, ast.AugAssign) and isinstance(st.target, ast.Name) and \
                        st.target.id == name:
                    python = not is_np(arith(given, self._typ(st.value), _ARITH[type(st.op)]))
                else:
                    continue
                keeps = keeps or python
                every = every or (id(st) in top and not python)
            if resets or (keeps and not every):
                raise Unsupported(f"{name}, a Python number given to the loop, is a NumPy "
                                  f"scalar after it or not, as its branches run")

    def _check_resets(self):
        """A variable given Python numbers and NumPy ones of one type T (`x = 0.0` then
        `x = x * x + C[k]`; `s = 0` in an outer loop then `s += A[i, j] * x[j]`) is T
        throughout, where that changes no value: each Python number it is given is a
        constant T holds exactly, it is never a loop's variable, and where it is read
        as the Python number it may be, the result is the type T gives (an operand of
        arithmetic that T and the Python type promote alike), or a comparison, or the
        value stored into an array element."""
        parents = {id(c): p for p in ast.walk(self.loop) for c in ast.iter_child_nodes(p)}
        for name, pys in self.resets.items():
            t = self.locals[name]
            for node in ast.walk(self.loop):
                if isinstance(node, ast.For) and name in {x.id for x in ast.walk(node.target)
                                                          if isinstance(x, ast.Name)}:
                    raise Unsupported(f"{name} is a loop's variable and holds a NumPy {t}")
                if isinstance(node, ast.Assign) and any(
                        name in {x.id for x in ast.walk(tgt) if isinstance(x, ast.Name)}
                        for tgt in node.targets):
                    values = node.value.elts if isinstance(node.targets[0], ast.Tuple) \
                        else [node.value]
                    for v in values:
                        if not is_np(self._typ(v)) and not _exactly(v, t):
                            raise Unsupported(f"{name} holds a NumPy {t} and is given a "
                                              f"Python number other than a constant")
                if isinstance(node, ast.Name) and node.id == name and \
                        isinstance(node.ctx, ast.Load):
                    self._check_reset_read(name, t, pys, node, parents.get(id(node)), parents)
                if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and \
                        node.target.id == name:
                    self._check_reset_read(name, t, pys, node.target, node, parents)

    def _check_reset_read(self, name, t, pys, node, parent, parents=None):
        """Where `node`, of type t in the nest and of a Python type in pys in the Python
        loop, is read: the same numbers either way, up to the value's use."""
        if isinstance(parent, ast.Compare):
            return
        if isinstance(parent, ast.Assign) and parent.value is node:
            if all(isinstance(x, ast.Subscript) or (isinstance(x, ast.Name) and
                                                    x.id in self.resets and
                                                    self.locals[x.id] == t)
                   for x in parent.targets):
                return          # stored into an array, or held as such a variable
        if isinstance(parent, ast.Tuple) and isinstance(parents, dict):
            assign = parents.get(id(parent))
            if isinstance(assign, ast.Assign) and assign.value is parent and \
                    isinstance(assign.targets[0], ast.Tuple):
                target = assign.targets[0].elts[parent.elts.index(node)]
                if isinstance(target, ast.Subscript) or (
                        isinstance(target, ast.Name) and target.id in self.resets and
                        self.locals[target.id] == t):
                    return
        if isinstance(parent, (ast.BinOp, ast.AugAssign)):
            other = parent.value if isinstance(parent, ast.AugAssign) else \
                (parent.right if parent.left is node else parent.left)
            op = _ARITH.get(type(parent.op))
            d = self._typ(other)
            left = isinstance(parent, ast.AugAssign) or parent.left is node
            try:
                r_np = arith(t, d, op) if left else arith(d, t, op)
                r_py = {arith(p, d, op) if left else arith(d, p, op) for p in pys}
            except Unsupported:
                r_py = None
            if op == "<<" and r_py != {r_np}:
                r_py = None     # NumPy's fixed-width shifts drop bits without stopping
            if r_py == {r_np} or (isinstance(parent, ast.AugAssign) and r_py is not None and
                                  all(_same_numbers(r, r_np) for r in r_py)):
                return
            if r_py is not None and all(_same_numbers(r, r_np) for r in r_py):
                return self._check_reset_read(name, r_np, r_py, parent,
                                              (parents or {}).get(id(parent)), parents)
        if isinstance(parent, ast.Call) and len(parent.args) == 1 and not parent.keywords and \
                isinstance(parent.func, ast.Attribute) and parent.func.attr in UNARY_MATH and \
                self.modules.get(getattr(parent.func.value, "id", None)) == "numpy":
            # np.sqrt(t ** 2 + 1.0): NumPy's function gives the same type of either
            try:
                r_np = numpy_result_type(parent.func.attr, [t])
                if {numpy_result_type(parent.func.attr, [p]) for p in pys} == {r_np}:
                    return
            except Unsupported:
                pass
        raise Unsupported(f"{name} holds a Python number or a NumPy {t}, and is read where "
                          f"the two differ")

    def _infer_stmts(self, stmts):
        for s in stmts:
            if isinstance(s, ast.For) and elements.parts(s) is not None:
                self._iter_types(s)
                self._infer_stmts(s.body)
            elif isinstance(s, ast.For):
                self._bind(s.target.id, PYINT)
                for a in s.iter.args:
                    self._want_int(a)
                self._infer_stmts(s.body)
            elif isinstance(s, (ast.If, ast.While)):
                self._typ(s.test)
                self._infer_stmts(s.body)
                self._infer_stmts(s.orelse)
            elif isinstance(s, ast.Assign) and len(s.targets) > 1:
                t = self._typ(s.value)
                for tgt in s.targets:
                    self._store_type(tgt, t)
            elif is_swap(s):            # A[[k, p]] = A[[p, k]]
                self._swap_type(s)
            elif appended(s) is not None:   # history.append(np.linalg.norm(r))
                self._append_type(*appended(s))
            elif isinstance(s, ast.Assign):
                tgt = s.targets[0]
                if isinstance(tgt, ast.Name) and tgt.id in self.copies:
                    continue
                if isinstance(tgt, ast.Tuple):
                    ts = [self._typ(v) for v in s.value.elts]
                    if VEC in ts or MAT in ts:
                        # `A[i], A[k] = A[k], A[i]` assigns NumPy views: the second
                        # row gets the first's new values (the Python loop does that)
                        raise Unsupported("rows or slices in a tuple assignment")
                    for e, t in zip(tgt.elts, ts):
                        self._store_type(e, t)
                elif self._is_fill(s):
                    self._fill_type(tgt)
                elif _is_row(s):
                    self._row(tgt)
                    for v in s.value.elts:
                        self._typ(v)
                elif isinstance(tgt, ast.Name) and self._type(s.value) in (VEC, MAT):
                    self._array_binding(tgt.id, s.value)
                else:
                    self._store_type(tgt, self._type(s.value))
            elif isinstance(s, ast.AugAssign):
                cur = self._typ(_as_load(s.target))
                self._store_type(s.target, arith(cur, self._typ(s.value), _ARITH[type(s.op)]))

    def _store_type(self, tgt, t):
        if isinstance(tgt, ast.Name):
            self._bind(tgt.id, t)
        elif is_str(self._element(tgt)) or is_str(t):     # checks the array and indices
            raise Unsupported(f"a string stored into {tgt.value.id}, or a store into a "
                              f"string array")

    def _want_int(self, e):
        t = self._typ(e)
        if not is_int(t) or t == B1:
            raise Unsupported("a range bound or index that is not an integer")
        return t

    def _element(self, sub):
        idx = sub.slice.elts if isinstance(sub.slice, ast.Tuple) else [sub.slice]
        if any(isinstance(x, ast.Slice) for x in idx):
            return vectors.slice_type(self.arrays, self.types, sub)
        name = sub.value.id
        if self.types.get(name) is not ARRAY:
            raise Unsupported(f"{name}[...] where {name} is not an array")
        dtype, ndim, _ = self.arrays[name]
        if len(idx) != ndim:
            raise Unsupported(f"{name} has {ndim} dimensions and is indexed by {len(idx)}")
        for e in idx:
            self._want_int(e)
        return dtype

    def _typ(self, e):
        """The type of an expression that is a number (or a slice)."""
        t = self._type(e)
        if is_str(t):
            raise Unsupported("a string used other than in == or != (scalar_nest_strings.py)")
        return t

    def _type(self, e):
        """The type of an expression (inference: names not typed yet count as unknown);
        a string's dtype for a string element or constant."""
        if isinstance(e, ast.Constant):
            v = e.value
            t = type_of_value(v)
            if t is None:
                t = strings.constant_type(v)
            if t is None or isinstance(v, np.generic):
                raise Unsupported(f"the constant {v!r}")
            return t
        if isinstance(e, ast.Name):
            t = self.type_of(e.id)
            if t is ARRAY:      # a whole float64 array in slice arithmetic: `u - old`
                return vectors.whole_type(self.arrays, e.id)
            return t
        if isinstance(e, ast.BinOp):
            if isinstance(e.op, ast.MatMult):     # of two slices: a dot product, matvec
                return vectors.matmul_type(self._typ(self._operand(e.left)),
                                           self._typ(self._operand(e.right)))
            if vectors.squared(e) and self._typ(e.left) in (VEC, MAT):
                return self._typ(e.left)      # `L[i, :i] ** 2`: NumPy's square, x * x
            return arith(self._typ(e.left), self._typ(e.right), _ARITH[type(e.op)])
        if isinstance(e, ast.UnaryOp):
            t = self._typ(e.operand)
            if isinstance(e.op, ast.Not):
                if t in (VEC, MAT):
                    raise Unsupported("`not` of a slice or a whole array")
                return PYBOOL
            if isinstance(e.op, ast.Invert):
                self._invert("", t)       # checks the type
                return t
            if t == B1:
                raise Unsupported("arithmetic on a NumPy bool")
            return PYINT if t == PYBOOL else t
        if isinstance(e, ast.Compare):
            ts = [self._type(x) for x in [e.left] + e.comparators]
            if any(t is VEC or t is MAT for t in ts):
                raise Unsupported("a comparison of a slice or a whole array")
            if any(is_str(t) for t in ts):    # np.str_ == np.str_ is Python's str ==
                strings.compare_type(ts, e.ops)
                return PYBOOL
            return B1 if any(is_np(t) for t in ts) else PYBOOL
        if isinstance(e, ast.BoolOp):
            for v in e.values:
                self._typ(v)
            return PYBOOL           # only as a condition (checked when rendered)
        if isinstance(e, ast.IfExp):
            self._typ(e.test)
            a, b = self._typ(e.body), self._typ(e.orelse)
            if a in (VEC, MAT):
                raise Unsupported("a conditional expression of slices")
            if a != b:
                raise Unsupported("a conditional expression of two types")
            return a
        if isinstance(e, ast.Subscript):
            if isinstance(e.value, ast.Attribute):       # A.shape[k]
                return PYINT
            return self._element(e)
        if isinstance(e, ast.Attribute) and e.attr in CONSTANTS:     # math.pi, np.inf
            self._constant(e)
            return PYFLOAT
        if isinstance(e, ast.Attribute) and e.attr == "T":    # V[:, :j].T: a view
            t = self._typ(e.value)
            if t not in (VEC, MAT):
                raise Unsupported(".T of something other than a slice or an array")
            return t
        if isinstance(e, ast.Attribute):                 # A.size, A.ndim
            if self.types.get(e.value.id) is not ARRAY:
                raise Unsupported(f"{e.value.id}.{e.attr} where {e.value.id} is not an array")
            return PYINT
        if isinstance(e, ast.Call):
            return self._call_type(e)
        raise Unsupported(f"{type(e).__name__} expressions")

    def _constant(self, e):
        """The value of math.pi, np.inf and the like."""
        which = self.modules.get(getattr(e.value, "id", None))
        module = {"numpy": np, "math": math}.get(which)
        v = getattr(module, e.attr, None)
        if type(v) is not float:
            raise Unsupported(f"{getattr(e.value, 'id', '?')}.{e.attr} is not a float constant")
        return v

    def _call_type(self, e):
        f = e.func
        if _float_of_text(e) is not None:         # float("inf")
            return PYFLOAT
        got = predicates.reduced(self, e)
        if got is not None:     # (P).any(), np.count_nonzero(P), np.argmax(E)
            return self._reduced_type(*got)
        if predicates.is_where(self, e):
            return self._where_type(e)
        if vectors.copy_of(self, e) is not None:      # E.copy(): a new array of its values
            t = self._typ(vectors.copy_of(self, e))
            if t not in (VEC, MAT):
                raise Unsupported(".copy() of something other than a slice or an array")
            return t
        if vectors.astype_of(self, e) is not None:    # X[i].astype(np.float64)
            return self._astype_type(e)
        if vectors.sign_of_slices(self, e):           # np.sign(E) of a slice expression
            return self._typ(e.args[0])
        if vectors.diag_of(self, e) is not None:       # np.diag(A), np.diag(v)
            return self._diag_type(e)
        if vectors.constructed(self, e) is not None:    # np.zeros(n), np.ones_like(x)
            return self._constructed_type(e)
        if vectors.mean_of(self, e) is not None:        # np.mean(E), E.mean()
            self._vector_operand(vectors.mean_of(self, e))
            return F8
        if vectors.median_of(self, e) is not None:      # np.median(E)
            self._vector_operand(vectors.median_of(self, e))
            return F8
        if isinstance(f, ast.Attribute) and f.attr == "sum" and not e.args:   # u.sum()
            self._vector_operand(f.value)
            return F8
        if isinstance(f, ast.Attribute) and f.attr == "norm":                 # np.linalg.norm
            if not (isinstance(f.value, ast.Attribute) and f.value.attr == "linalg" and
                    self.modules.get(getattr(f.value.value, "id", None)) == "numpy"):
                raise Unsupported("norm() of a module other than numpy.linalg")
            self._vector_operand(e.args[0])
            return F8
        if isinstance(f, ast.Attribute) and f.attr in ("dot", "sum", "outer"):
            if self.modules.get(getattr(f.value, "id", None)) != "numpy":
                raise Unsupported(f"{f.attr}() of a module other than numpy")
            if f.attr == "sum":
                self._vector_operand(e.args[0])
                return F8
            a, b = (self._typ(self._operand(x)) for x in e.args)
            if f.attr == "outer":
                if (a, b) != (VEC, VEC):
                    raise Unsupported("np.outer of something other than two vectors")
                return MAT
            return vectors.matmul_type(a, b)
        got = vectors.reduced_or_abs_type(self, e)
        if got is not None:     # np.abs(u - old).max(), np.max(E), abs(E)
            return got
        if isinstance(f, ast.Attribute) and f.attr in ("minimum", "maximum") and \
                len(e.args) == 2 and not e.keywords and \
                self.modules.get(getattr(f.value, "id", None)) == "numpy":
            ranks = {t for t in (self._typ(a) for a in e.args) if t in (VEC, MAT)}
            if len(ranks) > 1:
                raise Unsupported(f"np.{f.attr} of slices of different dimensions")
            if ranks:                   # of slices, elementwise (scalar_nest_vectors.py)
                return ranks.pop()
        if isinstance(f, ast.Name) and f.id == "len":
            if self.types.get(e.args[0].id) is not ARRAY:
                raise Unsupported(f"len() of {e.args[0].id}, which is not an array")
            return PYINT
        args = [self._typ(a) for a in e.args]
        if vectors.unary_call(self, e) is not None and args[0] in (VEC, MAT):
            return args[0]      # np.log(E) of a slice expression: elementwise, float64
        if any(a is VEC or a is MAT for a in args):
            # what the slice code above did not take (np.sin of a whole array, min() of
            # slices): the Python loop runs it
            raise Unsupported("a function of a slice or a whole array other than those "
                              "scalar_nest_vectors.py takes")
        if isinstance(f, ast.Name):
            if f.id == "float":
                return PYFLOAT
            if f.id == "int":
                return PYINT
            if f.id == "abs":
                return PYINT if args[0] == PYBOOL else args[0]
            if f.id in ("min", "max"):
                kinds = set(args)
                if len(kinds) == 1:
                    return args[0]
                if kinds <= {PYFLOAT, F8}:
                    # the one it returns keeps its type; the values are the same doubles,
                    # and np.float64 is a float: taken as NumPy's
                    return F8
                if id(e) in self.stored_extrema and all(type_of_numeric(a) for a in args):
                    # `H[i, j] = max(0, H[i - 1, j - 1] + s, ...)`: whichever it returns
                    # goes into the array as the same number, compared as NumPy compares,
                    # where each is that number in the common type too
                    t = functools.reduce(lambda x, y: arith(x, y, "+"), args)
                    if all(_holds(t, a) or _exactly(x, t) for x, a in zip(e.args, args)):
                        return t
                raise Unsupported(f"{f.id}() of different types")
        mod, name = f.value.id, f.attr
        which = self.modules[mod]
        if which == "numpy" and name in CONSTRUCTORS:
            if len(args) != 1 or (not type_of_numeric(args[0]) and args[0] not in (PYBOOL, B1)):
                raise Unsupported(f"np.{name} of other than one number")
            return CONSTRUCTORS[name]
        if which == "math" and name in CONSTRUCTORS:
            raise Unsupported(f"math.{name}")
        if which == "math":
            return PYINT if name in ("floor", "ceil") else PYFLOAT
        if name in ("abs", "absolute"):
            return args[0] if is_np(args[0]) else (F8 if args[0] == PYFLOAT else I8)
        if name in ("minimum", "maximum"):
            r = arith(args[0], args[1], "+")
            return r if is_np(r) else (F8 if r == PYFLOAT else I8)
        t = numpy_result_type(name, args)
        if F4 == t and any(a != F4 and not (is_np(a) and a.kind in "iu") for a in args):
            # float32 out of float32 (or int16) arguments only: mixed, refused
            raise Unsupported(f"np.{name} of float32 and another type")
        return t

    # ----------------------------------------------------------------- code
    def _out(self, text, depth=0):
        self.lines.append("  " * depth + text)

    def _new(self):
        self.tmp += 1
        return f"t{self.tmp}"

    def _head(self):
        """Declarations: arrays from bufs/P, parameters from P, locals; output slots."""
        out = ["  i64* npc_out = (i64*)bufs[0];",
               "  const unsigned npc_csr = __builtin_ia32_stmxcsr();",
               "  __builtin_ia32_ldmxcsr(npc_csr & ~0x3fu);  // no floating exception yet"]
        k, b = 0, 1
        for name in self.params + list(self.copies):
            t = self.types[name]
            if t is SINK:       # (its numbers go to memory of the nest's: _list_locals)
                continue
            if t is ARRAY:
                dtype, ndim, _ = self.arrays[name]
                out.append(f"  char* a_{name} = bufs[{b}];")
                # (an array the nest rebinds changes its shape with it)
                const = "" if name in self.arrays_bound else "const "
                for d in range(ndim):
                    out.append(f"  {const}i64 n_{name}_{d} = P[{k}], s_{name}_{d} = P[{k + 1}];")
                    k += 2
                b += 1
                continue
            if is_str(t):       # a str or bytes argument: its code units in a buffer
                out.append(f"  const char* v_{name} = bufs[{b}];")
                b += 1
                continue
            given = _CT[t]
            inner = self.locals.get(name, t)
            src = f"__builtin_bit_cast(double, P[{k}])" if given in FLOAT_CT else \
                f"(({given})P[{k}])"
            out.append(f"  {_CT[inner]} v_{name} = ({_CT[inner]}){src};")
            k += 1
        for name, t in self.locals.items():
            if name not in self.types:      # a string variable: where its element is
                out.append(f"  {'const char*' if is_str(t) else _CT[t]} v_{name} = 0;")
        out += self._array_locals() + self._scratch_locals() + self._list_locals()
        for name in self.outputs:
            out.append(f"  bool set_{name} = false;")
        return "\n".join(out) + "\n"

    def _tail(self):
        out = ["  {"]
        for j, name in enumerate(self.outputs):
            t = self.type_of(name)
            v = f"v_{name}"
            bits = f"__builtin_bit_cast(i64, (double){v})" if _CT[t] in FLOAT_CT else f"(i64){v}"
            out.append(f"    npc_out[{1 + 2 * j}] = {bits}; npc_out[{2 + 2 * j}] = set_{name};")
        out += self._arrays_out(1 + 2 * len(self.outputs))
        out += self._lists_out(array_slots(self) - lists.SLOTS * len(self.sinks))
        out += ["  }",
                "  {",
                "    __asm__ volatile(\"\" ::: \"memory\");  // every store before the flags",
                "    const unsigned fl = __builtin_ia32_stmxcsr() & 0xdu;  // invalid, /0, overflow",
                "    __builtin_ia32_ldmxcsr(npc_csr);",
                "    npc_out[0] = fl ? 2 : 0;",
                "    return;",
                "  }",
                "npc_fail:",
                "  __builtin_ia32_ldmxcsr(npc_csr);"] + self._arrays_freed() + \
            self._lists_freed() + [
                "  npc_out[0] = 1;"]
        return "\n".join(out) + "\n"

    def _emit_stmts(self, stmts, depth):
        for s in stmts:
            self._emit_stmt(s, depth)

    def _emit_stmt(self, s, depth):
        if isinstance(s, ast.For) and elements.parts(s) is not None:
            self._iter_loop(s, depth)
        elif isinstance(s, ast.For):
            name = s.target.id
            args = [self._int_expr(a) for a in s.iter.args]
            start, stop, step = ("0", args[0], "1") if len(args) == 1 else \
                (args[0], args[1], "1") if len(args) == 2 else tuple(args)
            k, hi, st = self._new(), self._new(), self._new()
            self._out(f"{{ const i64 {hi} = {stop}, {st} = {step};", depth)
            self._out(f"if ({st} == 0) {_FAIL};", depth + 1)
            self._out(f"for (i64 {k} = {start}; {st} > 0 ? {k} < {hi} : {k} > {hi}; "
                      f"{k} += {st}) {{", depth + 1)
            self._out(f"v_{name} = {k};" + (f" set_{name} = true;" if name in self.outputs
                                            else ""), depth + 2)
            self._emit_stmts(s.body, depth + 2)
            self._out("}}", depth + 1)
        elif isinstance(s, ast.If):
            self._out(f"if ({self._cond(s.test)}) {{", depth)
            self._emit_stmts(s.body, depth + 1)
            if s.orelse:
                self._out("} else {", depth)
                self._emit_stmts(s.orelse, depth + 1)
            self._out("}", depth)
        elif isinstance(s, ast.While):
            self._out(f"while ({self._cond(s.test)}) {{", depth)
            self._emit_stmts(s.body, depth + 1)
            self._out("}", depth)
        elif isinstance(s, ast.Assign) and len(s.targets) > 1:   # a = b = value: once
            t = self._typ(s.value)
            tmp = self._new()
            self._out(f"const {_CT[t]} {tmp} = {self._expr(s.value)};", depth)
            for tgt in s.targets:
                self._store(tgt, tmp, t, depth)
        elif is_swap(s):
            self._swap(s, depth)
        elif appended(s) is not None:
            self._append(*appended(s), depth)
        elif self._is_fill(s):
            self._fill_store(s.targets[0], s.value, depth)
        elif isinstance(s, ast.Assign) and _is_row(s):
            self._row_store(s.targets[0], s.value.elts, depth)
        elif isinstance(s, ast.Assign) and self._is_slice(s.targets[0]):
            self._vector_store(s.targets[0], s.value, None, depth)
        elif isinstance(s, ast.AugAssign) and self._is_slice(s.target):
            if type(s.op) not in (ast.Add, ast.Sub, ast.Mult, ast.Div):
                raise Unsupported("an augmented assignment to a slice other than += -= *= /=")
            self._vector_store(s.target, s.value, _ARITH[type(s.op)], depth)
        elif isinstance(s, ast.Assign) and isinstance(s.targets[0], ast.Name) and \
                s.targets[0].id in self.arrays_bound:
            self._array_bind(s.targets[0].id, s.value, depth)
        elif isinstance(s, ast.Assign) and isinstance(s.targets[0], ast.Name) and \
                s.targets[0].id in self.views_bound:
            self._view_bind(s.targets[0].id, s.value, depth)
        elif isinstance(s, ast.Assign):
            tgt = s.targets[0]
            if isinstance(tgt, ast.Name) and tgt.id in self.copies:
                self._emit_copy(tgt.id, self.copies[tgt.id], depth)
                return
            if isinstance(tgt, ast.Tuple):   # all values first, then the stores
                vals = []
                for e, v in zip(tgt.elts, s.value.elts):
                    t = self._typ(v)
                    tmp = self._new()
                    self._out(f"const {_CT[t]} {tmp} = {self._expr(v)};", depth)
                    vals.append((e, tmp, t))
                for e, tmp, t in vals:
                    self._store(e, tmp, t, depth)
            elif isinstance(tgt, ast.Name) and is_str(self._type(s.value)):
                self._out(f"v_{tgt.id} = (const char*){self._str_operand(s.value)[0]};", depth)
            else:
                self._store(tgt, self._expr(s.value), self._typ(s.value), depth)
        elif isinstance(s, ast.AugAssign):
            cur = _as_load(s.target)
            a, b = self._typ(cur), self._typ(s.value)
            if isinstance(s.target, ast.Subscript):   # the element's address, once
                ptr = self._new()
                self._out(f"{_CT[a]}* {ptr} = &{self._element_ref(s.target)};", depth)
                val = self._binop(f"(*{ptr})", a, self._expr(s.value), b, _ARITH[type(s.op)])
                t = arith(a, b, _ARITH[type(s.op)])
                self._out(f"*{ptr} = {self._convert_store(val, t, a)};", depth)
            else:
                val = self._binop(self._expr(cur), a, self._expr(s.value), b, _ARITH[type(s.op)])
                self._store(s.target, val, arith(a, b, _ARITH[type(s.op)]), depth)
        elif isinstance(s, ast.Break):
            self._out("break;", depth)
        elif isinstance(s, ast.Continue):
            self._out("continue;", depth)
        elif isinstance(s, ast.Raise):
            # a guard (`if d <= 0: raise ValueError(...)`): the nest stops like any error,
            # its writes are put back, and the Python loop raises the user's exception
            self._out(f"{_FAIL};", depth)
        elif isinstance(s, ast.Pass):
            pass
        else:
            raise Unsupported(f"{type(s).__name__} statements")

    def _row(self, sub):
        """(array name, its dtype, its last axis) of `name[i, ...]` naming a whole row."""
        name = sub.value.id
        idx = sub.slice.elts if isinstance(sub.slice, ast.Tuple) else [sub.slice]
        if self.types.get(name) is not ARRAY or any(isinstance(x, ast.Slice) for x in idx):
            raise Unsupported(f"a row of numbers stored into {name}[...]")
        dtype, ndim, _ = self.arrays[name]
        if len(idx) != ndim - 1:
            raise Unsupported(f"{name} has {ndim} dimensions and a row of it is indexed by "
                              f"{len(idx)}")
        for e in idx:
            self._want_int(e)
        return name, dtype, ndim - 1

    def _row_store(self, tgt, elts, depth):
        """`out[t] = x, y, z`: the values first (Python builds the tuple), then the row's
        elements; a row of another length stops the nest (NumPy's ValueError)."""
        name, dtype, last = self._row(tgt)
        self._out(f"if (n_{name}_{last} != {len(elts)}) {_FAIL};", depth)
        vals = []
        for v in elts:
            t, tmp = self._typ(v), self._new()
            self._out(f"const {_CT[t]} {tmp} = {self._expr(v)};", depth)
            vals.append((tmp, t))
        idx = tgt.slice.elts if isinstance(tgt.slice, ast.Tuple) else [tgt.slice]
        row = self._new()
        offset = " + ".join([f"{self._index(e, f'n_{name}_{d}')} * s_{name}_{d}"
                             for d, e in enumerate(idx)] or ["0"])
        self._out(f"char* {row} = a_{name} + {offset};", depth)
        for j, (tmp, t) in enumerate(vals):
            self._out(f"*({_CT[dtype]}*)({row} + {j} * s_{name}_{last}) = "
                      f"{self._convert_store(tmp, t, dtype)};", depth)

    def _emit_copy(self, dst, src, depth):
        """`dst = src.copy()`: element by element into dst's scratch array."""
        dtype, ndim, _ = self.arrays[src]
        qs = [self._new() for _ in range(ndim)]
        for d, q in enumerate(qs):
            self._out(f"for (i64 {q} = 0; {q} < n_{src}_{d}; ++{q})", depth + d)
        off = lambda a: " + ".join(f"{q} * s_{a}_{d}" for d, q in enumerate(qs))  # noqa: E731
        self._out(f"*({_CT[dtype]}*)(a_{dst} + {off(dst)}) = "
                  f"*({_CT[dtype]}*)(a_{src} + {off(src)});", depth + ndim)

    def _is_slice(self, tgt):
        return isinstance(tgt, ast.Subscript) and isinstance(tgt.value, ast.Name) and \
            self._element(tgt) in (VEC, MAT)

    def _store(self, tgt, val, t, depth):
        if isinstance(tgt, ast.Name) and is_str(self.type_of(tgt.id)):
            raise Unsupported("a string held in a variable, assigned other than plainly")
        if isinstance(tgt, ast.Name):
            vt = self.type_of(tgt.id)
            self._out(f"v_{tgt.id} = ({_CT[vt]})({val});" +
                      (f" set_{tgt.id} = true;" if tgt.id in self.outputs else ""), depth)
            return
        dtype = self._element(tgt)
        ref = self._element_ref(tgt)
        self._out(f"{ref} = {self._convert_store(val, t, dtype)};", depth)

    def _convert_store(self, val, t, dtype):
        """A value of type t stored into an element of dtype, as NumPy's setitem casts."""
        if dtype.kind == "f":     # rounded to the element's width, as NumPy casts
            return f"({_CT[dtype]})({val})"
        if dtype == B1:           # anything not zero is True (nan too)
            return f"(({val}) != 0)"
        lo, hi = int_range(dtype)
        if is_float(t):    # truncated; nan, inf and out of range are NumPy's to handle
            return self._trunc(val, _CT[dtype], lo, hi + 1)
        if is_np(t):       # a NumPy integer or bool: cast as NumPy casts (wrapping)
            lo_t, hi_t = (0, 1) if t == B1 else int_range(t)
            if (NEP50 or (t == U8 and dtype.kind == "i")) and (lo_t < lo or hi_t > hi):
                # NumPy 2 stores a NumPy integer as a Python int: OverflowError where
                # it does not fit (a signed array; an unsigned one wraps, but not in
                # every 2.x), and NumPy 1 a uint64 into a signed array: the nest stops
                x = self._new()
                w = "u64" if t == U8 else "i64"
                out = ([f"{x} > {hi}ULL"] if t == U8 else
                       ([f"{x} < {lo}LL"] if lo_t < lo else []) +
                       ([f"{x} > {hi}LL"] if hi_t > hi else []))
                return (f"({{ const {w} {x} = ({w})({val}); if ({' || '.join(out)}) {_FAIL}; "
                        f"({_CT[dtype]}){x}; }})")
            return f"({_CT[dtype]})(u64)({val})"
        # a Python int: NumPy 2 raises where it does not fit, NumPy 1 warns
        return self._python_int_as(val, dtype)

    def _python_int_as(self, val, dtype):
        """A Python int (held as int64) as an integer of dtype; where it does not fit,
        the nest stops (NumPy 2 raises OverflowError, NumPy 1 warns)."""
        lo, hi = int_range(dtype)
        if (lo, hi) == int_range(I8):
            return f"(({_CT[dtype]})({val}))"
        x = self._new()
        if dtype == U8:
            return f"({{ const i64 {x} = {val}; if ({x} < 0) {_FAIL}; (u64){x}; }})"
        return (f"({{ const i64 {x} = {val}; if ({x} < {lo}LL || {x} > {hi}LL) {_FAIL}; "
                f"({_CT[dtype]}){x}; }})")

    def _element_ref(self, sub):
        dtype = self.arrays[sub.value.id][0]
        return f"(*({_CT[dtype]}*)({self._element_addr(sub)}))"

    def _element_addr(self, sub):
        """The C address of an element, its indices checked."""
        name = sub.value.id
        idx = sub.slice.elts if isinstance(sub.slice, ast.Tuple) else [sub.slice]
        parts = [f"{self._index(e, f'n_{name}_{d}')} * s_{name}_{d}" for d, e in enumerate(idx)]
        return f"(a_{name} + {' + '.join(parts)})"

    def _index(self, e, n):
        """An index into a dimension of length n, as NumPy takes it: from the end when
        negative, and out of bounds stops the nest (NumPy's IndexError)."""
        x = self._new()
        return (f"({{ i64 {x} = {self._int_expr(e)}; if ({x} < 0) {x} += {n}; "
                f"if ((u64){x} >= (u64){n}) {_FAIL}; {x}; }})")

    def _int_expr(self, e):
        t = self._want_int(e)
        if t == U8:     # past int64 it is out of every bound (and range()'s too)
            x = self._new()
            return (f"({{ const u64 {x} = {self._expr(e)}; if ({x} >> 63) {_FAIL}; "
                    f"(i64){x}; }})")
        return f"(i64)({self._expr(e)})" if t != PYINT else self._expr(e)

    def _cond(self, e):
        if isinstance(e, ast.BoolOp):
            op = " && " if isinstance(e.op, ast.And) else " || "
            return "(" + op.join(self._cond(v) for v in e.values) + ")"
        if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.Not):
            return f"(!{self._cond(e.operand)})"
        return f"(({self._expr(e)}) != 0)"

    def _expr(self, e):
        if isinstance(e, ast.Constant):   # bool, int64 or float64, as the kernels write them
            if type(e.value) not in (bool, int, float):
                raise Unsupported(f"the constant {e.value!r} where a number is needed")
            return literal(e.value, {bool: B1, int: I8, float: F8}[type(e.value)])
        # a number (a string's truth is its length, an array's is NumPy's: refused)
        if self._typ(e) in (VEC, MAT):
            raise Unsupported("a slice or a whole array where a number is needed")
        if isinstance(e, ast.Name):
            return f"v_{e.id}"
        if isinstance(e, ast.BinOp):
            if isinstance(e.op, ast.MatMult):
                return self._reduction(e.left, e.right)
            return self._binop(self._expr(e.left), self._typ(e.left), self._expr(e.right),
                               self._typ(e.right), _ARITH[type(e.op)])
        if isinstance(e, ast.UnaryOp):
            if isinstance(e.op, ast.Not):
                return self._cond(e)
            t = self._typ(e)
            a = self._expr(e.operand)
            if isinstance(e.op, ast.UAdd):
                return f"(({_CT[t]}){a})"
            if isinstance(e.op, ast.USub):
                if is_float(t):
                    return f"(-({a}))"
                x = self._new()
                return f"({{ {_CT[t]} {x}; if (__builtin_sub_overflow(({_CT[t]})0, ({_CT[t]}){a}, &{x})) {_FAIL}; {x}; }})"
            return self._invert(a, t)
        if isinstance(e, ast.Compare):
            parts, left = [], e.left
            for op, right in zip(e.ops, e.comparators):
                if type(op) not in _CMP:
                    raise Unsupported(f"the comparison {type(op).__name__}")
                parts.append(self._compare(left, op, right))
                left = right
            return "(" + " && ".join(parts) + ")"
        if isinstance(e, ast.BoolOp):
            raise Unsupported("and/or outside a condition")
        if isinstance(e, ast.IfExp):
            return f"({self._cond(e.test)} ? ({self._expr(e.body)}) : ({self._expr(e.orelse)}))"
        if isinstance(e, ast.Subscript):
            if isinstance(e.value, ast.Attribute):        # A.shape[k]
                name, k = e.value.value.id, e.slice.value
                if self.types.get(name) is not ARRAY:
                    raise Unsupported(f"{name}.shape where {name} is not an array")
                if not 0 <= k < self.arrays[name][1]:
                    raise Unsupported(f"{name}.shape[{k}] is out of range")
                return f"n_{name}_{k}"
            self._element(e)
            return self._element_ref(e)
        if isinstance(e, ast.Attribute) and e.attr in CONSTANTS:
            return literal(self._constant(e), F8)
        if isinstance(e, ast.Attribute):
            self._typ(e)
            name = e.value.id
            ndim = self.arrays[name][1]
            if e.attr == "ndim":
                return f"((i64){ndim})"
            return "(" + " * ".join(f"n_{name}_{d}" for d in range(ndim)) + ")"
        if isinstance(e, ast.Call):
            return self._call(e)
        raise Unsupported(f"{type(e).__name__} expressions")

    def _call(self, e):
        f = e.func
        t = self._typ(e)
        if _float_of_text(e) is not None:
            return literal(_float_of_text(e), F8)
        got = predicates.reduced(self, e)
        if got is not None:
            return self._reduced_code(*got)
        if vectors.mean_of(self, e) is not None:
            return self._mean(vectors.mean_of(self, e))
        if vectors.median_of(self, e) is not None:
            return self._median(vectors.median_of(self, e))
        if isinstance(f, ast.Attribute) and f.attr == "sum" and not e.args:
            return self._reduction(f.value)
        extreme = vectors.extreme_of(self, e)
        if extreme is not None:
            return self._extreme_reduction(*extreme)
        if isinstance(f, ast.Attribute) and f.attr == "norm":
            return self._reduction(e.args[0], e.args[0], square_root=True)
        if isinstance(f, ast.Attribute) and f.attr in ("dot", "sum"):
            return self._reduction(*e.args)
        if isinstance(f, ast.Name) and f.id == "len":
            return f"n_{e.args[0].id}_0"
        args = [self._expr(a) for a in e.args]
        types = [self._typ(a) for a in e.args]
        if isinstance(f, ast.Name):
            if f.id == "float":
                return f"((double)({args[0]}))"
            if f.id == "int":
                if is_int(types[0]):
                    return f"((i64)({args[0]}))"
                return self._trunc(args[0], "i64", -2 ** 63, 2 ** 63)   # int(nan) raises
            if f.id == "abs":
                return self._abs(args[0], t)
            # min/max as Python's builtins: the first unless a later one compares
            # strictly less (greater)
            cmp = "<" if f.id == "min" else ">"
            args = [self._operand_as(a, ta, t) for a, ta in zip(args, types)]
            out = args[0]
            for a in args[1:]:
                x, y = self._new(), self._new()
                out = (f"({{ const {_CT[t]} {x} = {out}, {y} = {a}; "
                       f"({y} {cmp} {x}) ? {y} : {x}; }})")
            return out
        name = f.attr
        if name in CONSTRUCTORS:
            return self._convert_store(args[0], types[0], t)
        if name in ("floor", "ceil") and self.modules[f.value.id] == "math":
            self._libm(name, 1)     # an int in Python: nan and inf raise there
            return self._trunc(f"{name}((double)({args[0]}))", "i64", -2 ** 63, 2 ** 63)
        if name in ("abs", "absolute", "fabs") and self.modules[f.value.id] == "numpy":
            return self._abs(f"(({_CT[t]}){args[0]})", t)
        if name in ("minimum", "maximum"):     # a Python int must fit, as in arithmetic
            a, b = (self._operand_as(x, tx, t) for x, tx in zip(args, types))
            return vectors.extremum(a, b, _CT[t], name, self._new(), self._new(), is_float(t))
        if name == "sign":
            x = self._new()
            return (f"({{ const {_CT[t]} {x} = ({_CT[t]})({args[0]}); "
                    f"{predicates.sign_of(x, _CT[t], is_float(t))}; }})")
        if is_int(t):       # np.floor of an integer is that integer under NumPy 2
            return f"(({_CT[t]})({args[0]}))"
        c = "float" if t == F4 else "double"     # NumPy's float32 functions: libm's *f
        fn = (_BINARY[name] if name in _BINARY else UNARY_MATH[name]) + ("f" if c == "float" else "")
        self._libm(fn, len(args), c)
        return f"{fn}({', '.join(f'({c})({a})' for a in args)})"

    def _trunc(self, val, ctype, lo, hi):
        """A float truncated to an integer type; nan, inf and values outside [lo, hi)
        stop the nest (Python raises, NumPy warns)."""
        x = self._new()
        return (f"({{ const double {x} = {val}; if (!({x} >= {float(lo)!r} && {x} < "
                f"{float(hi)!r})) {_FAIL}; ({ctype}){x}; }})")

    def _libm(self, fn, arity, ctype="double"):
        """A libm function the nest calls, declared as the kernels declare theirs."""
        self.need.add(("math", fn, arity, ctype))

    def _abs(self, a, t):
        if is_float(t):
            self._libm("fabs", 1)
            return f"fabs({a})"
        x = self._new()
        return (f"({{ {_CT[t]} {x} = {a}; if ({x} < 0 && __builtin_sub_overflow(({_CT[t]})0, "
                f"{x}, &{x})) {_FAIL}; {x}; }})")

    def _operand_as(self, a, ta, t):
        """An integer operand of type ta as the operation's integer type t: NumPy's
        promotion keeps every value, except a Python int next to a narrower NumPy
        integer under NumPy 2, which raises where it does not fit."""
        if ta == PYINT and is_np(t):
            return self._python_int_as(a, t)
        return f"(({_CT[t]})({a}))"

    def _compare(self, left, op, right):
        """C of one comparison, by value as NumPy and Python compare (C's own rules
        would turn a signed side unsigned, or an int32 into a float)."""
        ta, tb = self._type(left), self._type(right)
        if is_str(ta) or is_str(tb):
            return self._str_compare(left, op, right)
        c = _CMP[type(op)]
        a, b = self._expr(left), self._expr(right)
        if is_float(ta) or is_float(tb):
            if not is_np(ta) and not is_np(tb):     # Python's int == float is exact
                x, y = self._new(), self._new()
                guard = "".join(f"if ({v} > {_EXACT}LL || {v} < -{_EXACT}LL) {_FAIL}; "
                                for v, tv in ((x, ta), (y, tb)) if is_int(tv))
                return (f"({{ const {_CT[ta]} {x} = {a}; const {_CT[tb]} {y} = {b}; {guard}"
                        f"({x} {c} {y}); }})")
            as_int = lambda t: np.dtype("i1") if t == B1 else t  # noqa: E731  (a bool is 0, 1)
            ct = "float" if arith(as_int(ta), as_int(tb), "+") == F4 else "double"
            return f"(({ct})({a}) {c} ({ct})({b}))"
        signed = [t for t in (ta, tb) if t == PYINT or (is_np(t) and t.kind == "i")]
        if U8 in (ta, tb) and signed:
            if not NEP50:     # NumPy 1 compares uint64 and int64 as float64
                return f"((double)({a}) {c} (double)({b}))"
            x, y = self._new(), self._new()     # NumPy 2: by value
            neg = x if ta != U8 else y          # the signed side, when negative, is less
            less = c in (("<", "<=", "!=") if neg == x else (">", ">=", "!="))
            return (f"({{ const {_CT[ta]} {x} = {a}; const {_CT[tb]} {y} = {b}; "
                    f"({neg} < 0) ? {'true' if less else 'false'} : "
                    f"((u64){x} {c} (u64){y}); }})")
        ct = "u64" if U8 in (ta, tb) else "i64"
        return f"(({ct})({a}) {c} ({ct})({b}))"

    def _binop(self, a, ta, b, tb, op):
        if op in BITS:
            return self._bitop(a, ta, b, tb, op)
        t = arith(ta, tb, op)
        C = _CT[t]
        if t == F4:      # float32 arithmetic, each result rounded to float32 as NumPy's
            if op in "+-*":
                return f"((float)({a}) {op} (float)({b}))"
            if op != "/":
                raise Unsupported(f"{op} of float32 numbers")
            x, y = self._new(), self._new()
            return (f"({{ const float {x} = (float)({a}), {y} = (float)({b}); "
                    f"if ({y} == 0) {_FAIL}; {x} / {y}; }})")
        if op == "/":
            x, y = self._new(), self._new()
            guard = ""
            if is_int(ta) or is_int(tb):   # exact only while the integers are doubles
                guard = "".join(f"if ({v} > {_EXACT}.0 || {v} < -{_EXACT}.0) {_FAIL}; "
                                for v, tv in ((x, ta), (y, tb)) if is_int(tv))
            return (f"({{ const double {x} = (double)({a}), {y} = (double)({b}); {guard}"
                    f"if ({y} == 0) {_FAIL}; {x} / {y}; }})")
        if is_float(t):
            if op in "+-*":
                return f"((double)({a}) {op} (double)({b}))"
            x, y = self._new(), self._new()
            if op == "**":
                self._libm("pow", 2)
                self._libm("floor", 1)
                return (f"({{ const double {x} = (double)({a}), {y} = (double)({b}); "
                        f"if (({x} < 0 && floor({y}) != {y}) || ({x} == 0 && {y} < 0)) {_FAIL}; "
                        f"pow({x}, {y}); }})")
            # NumPy's (and Python's) float floor division and modulo: the kernels' own
            self._libm("fmod", 2)
            self._libm("floor", 1)
            self._libm("copysign", 2)
            self.need.add(("helper", "fdivmod", "double"))
            fn = "npc_mod_double" if op == "%" else "npc_floordiv_double"
            return (f"({{ const double {x} = (double)({a}), {y} = (double)({b}); "
                    f"if ({y} == 0) {_FAIL}; {fn}({x}, {y}); }})")
        # integers, checked: Python's are unbounded, NumPy's wrap with a warning
        x, y, r = self._new(), self._new(), self._new()
        pre = (f"const {C} {x} = {self._operand_as(a, ta, t)}, "
               f"{y} = {self._operand_as(b, tb, t)}; {C} {r};")
        if op in "+-*":
            fn = {"+": "add", "-": "sub", "*": "mul"}[op]
            return f"({{ {pre} if (__builtin_{fn}_overflow({x}, {y}, &{r})) {_FAIL}; {r}; }})"
        if op in ("//", "%"):
            lo = int_range(t)[0]
            least = f" || ({y} == -1 && {x} == {lo}LL)" if lo else ""   # MIN // -1 overflows
            if lo == -2 ** 63:
                least = f" || ({y} == -1 && {x} == (i64)(((u64)1) << 63))"
            q = (f"if ({y} == 0{least}) {_FAIL}; "
                 f"{C} q = {x} / {y}, m = {x} % {y}; if (m && ((m < 0) != ({y} < 0))) "
                 f"{{ q -= 1; m += {y}; }}")
            return f"({{ {pre} {q} {'q' if op == '//' else 'm'}; }})"
        # ** with a non-negative exponent, by squaring, checked
        return (f"({{ {pre} if ({y} < 0) {_FAIL}; {r} = 1; {C} base = {x}, e = {y}; "
                f"while (e) {{ if ((e & 1) && __builtin_mul_overflow({r}, base, &{r})) "
                f"{_FAIL}; e >>= 1; if (e && __builtin_mul_overflow(base, base, &base)) "
                f"{_FAIL}; }} {r}; }})")


def _stores_extremum(s):
    """`A[i, j] = max(...)` or min(...): only the number it gives matters, not its type."""
    return isinstance(s, ast.Assign) and len(s.targets) == 1 and \
        isinstance(s.targets[0], ast.Subscript) and isinstance(s.value, ast.Call) and \
        isinstance(s.value.func, ast.Name) and s.value.func.id in ("min", "max") and \
        not any(isinstance(x, ast.Slice) for x in ast.walk(s.targets[0].slice))


def _holds(t, a):
    """Whether every value of type a is a value of type t (an integer that does not fit
    an integer type stops the nest where it is converted)."""
    if a == t or (is_int(a) and is_int(t)) or (a == PYFLOAT and t == F8):
        return True
    return is_np(a) and is_np(t) and t.kind == "f" and (
        (a.kind == "f" and a.itemsize <= t.itemsize) or
        (a.kind in "iub" and 2 * a.itemsize <= t.itemsize))


def _same_numbers(py, t):
    """Whether a value of Python type py and one of NumPy type t computed alike are the
    same number (a Python float and a float64; a Python int and a NumPy integer, whose
    overflow stops the nest), so that only the type differs."""
    return py == t or (py == PYFLOAT and t == F8) or \
        (py == PYINT and is_np(t) and t.kind in "iu")


def _exactly(e, t):
    """Whether e is a number constant that type t holds exactly."""
    if not isinstance(e, ast.Constant) or type(e.value) not in (int, float) or not is_np(t):
        return False
    with np.errstate(all="ignore"):
        return bool(np.array(e.value).astype(t) == e.value)


def _float_of_text(e):
    """The value of float("inf"), float("nan"), float("-inf") ...; None for other calls."""
    if isinstance(e.func, ast.Name) and e.func.id == "float" and len(e.args) == 1 and \
            isinstance(e.args[0], ast.Constant) and type(e.args[0].value) is str:
        try:
            return float(e.args[0].value)
        except ValueError:
            raise Unsupported(f"float({e.args[0].value!r}) raises") from None
    return None


def _whole_rows(loop, types, arrays):
    """The loop as NumPy reads it, in the forms the slice code takes (float64; elsewhere
    refused as before): `A[i]` of an array of more dimensions is the row `A[i, :]`
    (`snaps[p] = u`, Gaussian elimination's `A[j] -= f * A[i]`), except as the target
    of a row of numbers (`out[t] = x, y, z`, stored element by element); `x op= ...` of
    an array updates it in place, `x[:] op= ...`."""
    if not any(isinstance(n, (ast.Subscript, ast.AugAssign)) for n in ast.walk(loop)):
        return loop
    loop = copy.deepcopy(loop)      # (the Nest's own loop serves every argument type)
    rows_of_numbers = {id(st.targets[0]) for st in ast.walk(loop)
                       if isinstance(st, ast.Assign) and _is_row(st)}

    class Rows(ast.NodeTransformer):
        def visit_AugAssign(self, st):
            # `x += dt * v` of an array x updates it in place, as NumPy: `x[:] += ...`
            self.generic_visit(st)
            t = st.target
            if isinstance(t, ast.Name) and types.get(t.id) is ARRAY:
                st.target = ast.copy_location(vectors.whole_subscript(
                    t.id, arrays[t.id][1], ast.Store()), t)
            return st

        def visit_Subscript(self, sub):
            self.generic_visit(sub)
            if id(sub) in rows_of_numbers or not isinstance(sub.value, ast.Name) or \
                    types.get(sub.value.id) is not ARRAY:
                return sub
            idx = sub.slice.elts if isinstance(sub.slice, ast.Tuple) else [sub.slice]
            missing = arrays[sub.value.id][1] - len(idx)
            if missing <= 0 or any(isinstance(x, ast.Constant) and x.value in (None, Ellipsis)
                                   for x in idx):
                return sub
            return ast.copy_location(ast.Subscript(
                value=sub.value, slice=ast.Tuple(list(idx) + vectors.full_slices(missing),
                                                 ast.Load()), ctx=sub.ctx), sub)
    return ast.fix_missing_locations(Rows().visit(loop))


def _is_row(s):
    return isinstance(s.value, (ast.Tuple, ast.List)) and isinstance(s.targets[0], ast.Subscript)


def type_of_numeric(t):
    return t in (PYINT, PYFLOAT) or (is_np(t) and t.kind in "iuf")


def _as_load(node):
    """A copy of an assignment target that reads it (`x[i]` of `x[i] += v`)."""
    n = copy.deepcopy(node)
    for x in ast.walk(n):
        if hasattr(x, "ctx"):
            x.ctx = ast.Load()
    return n


def _name(t):
    return f"NumPy {t}" if is_np(t) else f"Python {t}"



