"""Names bound to new float64 arrays inside a compiled loop nest (codegen/scalar_nest.py):
what Krylov methods and iterative solvers write between their element updates,
`y = A @ Q[:, k]`, `y = y - H[j, k] * Q[:, j]`, `x = x + alpha * p`, `v = w / beta[j]`.

In NumPy each such statement makes a new array and rebinds the name; the old array is
untouched (another name may hold it). Here likewise: the value is computed into memory
the nest allocates, and the name's pointer, lengths and strides then point there. A
parameter rebound so leaves the caller's array as it was. Where the value does not
read the name and the nest already owns memory of that size, it is written there
instead (a loop's `y = A @ x` allocates once), as it is where the value reads the name
only element for element (`x = x * 0.5 + 1.0`).

A name bound to a slice of an array the caller gave (`x = R[k:, k]`) is a view: its
pointer, lengths and strides are into that array, so its reads and writes are the
array's, as in NumPy (the nest's overlap tests take it for that array). One bound to
another's name (`v = w`) is NumPy's alias: a copy where no change in place can tell the
two apart (_aliases_safe), else refused. Only float64 values (what slice arithmetic computes) of one rank per name: a name given an
array of another dtype or rank is refused.

After the nest, a name that code after it reads and that the nest bound anew is handed
back as a NumPy array (C-contiguous, as NumPy's own result): four slots per name after
the numbers' (pointer, two lengths, whether bound), copied into a new array and freed
by take_arrays(). What the nest allocated and does not hand back it frees, on every
way out."""
import ast
import ctypes

import numpy as np

from .scalar_nest_lists import SLOTS as LIST_SLOTS
from .scalar_nest_types import ARRAY, F8, MAT, VEC, Unsupported
from .scalar_nest_vectors import ELEMENTWISE_CALLS

_FAIL = "goto npc_fail"
_RANK = {VEC: 1, MAT: 2}
_SLOTS = 4      # per array handed back: pointer, length 0, length 1, set
_libc = ctypes.CDLL(None)
_libc.free.argtypes = [ctypes.c_void_p]


def _aliases_safe(loop):
    """May `v = w` (two names, one array in NumPy) be a copy in this loop? Where every
    change in place of a name either side of such an assignment (`X op= ...`, `X[i] =
    ...`) follows, in its own block, a plain `X = <new array>` with nothing binding X or
    naming it in another such assignment between them."""
    pairs = [(s.targets[0].id, s.value.id) for s in ast.walk(loop)
             if isinstance(s, ast.Assign) and len(s.targets) == 1 and
             isinstance(s.targets[0], ast.Name) and isinstance(s.value, ast.Name)]
    names = {n for pair in pairs for n in pair}

    def changed(st):
        """The name st changes in place, or None."""
        if isinstance(st, ast.AugAssign):
            t = st.target
        elif isinstance(st, ast.Assign) and len(st.targets) == 1:
            t = st.targets[0]
            if not isinstance(t, ast.Subscript):
                return None
        else:
            return None
        while isinstance(t, ast.Subscript):
            t = t.value
        return t.id if isinstance(t, ast.Name) and t.id in names else None

    def fresh(st, name):
        return isinstance(st, ast.Assign) and len(st.targets) == 1 and \
            isinstance(st.targets[0], ast.Name) and st.targets[0].id == name and \
            not isinstance(st.value, (ast.Name, ast.Subscript))

    def touches(st, name):
        return any(isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load)
                   for n in ast.walk(st)) or \
            any(isinstance(n, ast.Assign) and isinstance(n.value, ast.Name) and
                n.value.id == name for n in ast.walk(st))

    blocks = [n.body for n in ast.walk(loop) if isinstance(n, (ast.For, ast.While, ast.If))] + \
        [n.orelse for n in ast.walk(loop) if isinstance(n, (ast.If,)) and n.orelse]
    for block in blocks:
        for k, st in enumerate(block):
            name = changed(st)
            if name is None:
                continue
            for j in range(k - 1, -1, -1):
                if fresh(block[j], name):
                    break
                if touches(block[j], name):
                    return False
            else:
                return False
    return True


def _elementwise_reads(e, name):
    """Does `e` read `name` only element for element (`y - h * Q[:, j]`, `x * 0.5 + 1`),
    so that its value may be written over the name's own memory? Not under @, a
    reduction, a subscript or a transpose, which read other elements than the one
    being written."""
    if isinstance(e, ast.Name):
        return True
    if isinstance(e, ast.BinOp) and not isinstance(e.op, ast.MatMult):
        return _elementwise_reads(e.left, name) and _elementwise_reads(e.right, name)
    if isinstance(e, ast.UnaryOp):
        return _elementwise_reads(e.operand, name)
    if isinstance(e, ast.Call) and not e.keywords and (
            (isinstance(e.func, ast.Name) and e.func.id == "abs") or
            (isinstance(e.func, ast.Attribute) and e.func.attr in ELEMENTWISE_CALLS)):
        return all(_elementwise_reads(a, name) for a in e.args)
    return not any(isinstance(x, ast.Name) and x.id == name for x in ast.walk(e))


class NewArray(Exception):
    """A name was found to hold arrays: type inference starts over with it an array
    (its reads and `op=` updates are then rewritten as slices, _whole_rows)."""


def array_slots(nest):
    """How many int64 slots the nest's outputs take: status, the numbers', the arrays',
    the lists' (scalar_nest_lists.py)."""
    return 1 + 2 * len(nest.outputs) + _SLOTS * len(nest.array_outputs) + \
        LIST_SLOTS * len(getattr(nest, "sinks", ()))


def take_arrays(nest, slots):
    """{name: new ndarray} of the arrays the nest handed back, their memory freed (also
    where the nest's result is not used: a warning's status 2)."""
    got = {}
    base = 1 + 2 * len(nest.outputs)
    for j, name in enumerate(nest.array_outputs):
        ptr, n0, n1, is_set = (int(x) for x in slots[base + _SLOTS * j: base + _SLOTS * (j + 1)])
        if not is_set or not ptr:
            continue
        shape = (n0,) if nest.arrays_bound[name] == 1 else (n0, n1)
        count = n0 * (n1 if len(shape) == 2 else 1)
        a = np.empty(shape, np.float64)
        if count:
            ctypes.memmove(a.ctypes.data, ptr, count * 8)
        _libc.free(ptr)
        got[name] = a
    return got


class ArrayBindings:
    """Mixed into scalar_nest.Nest."""

    def _array_binding(self, name, value):
        """Type inference of `name = value`, value a slice expression (VEC or MAT)."""
        rank = _RANK[self._type(value)]
        if isinstance(value, (ast.Subscript, ast.Name)):
            return self._view_binding(name, value, rank)
        self._new_array(name, rank)

    def _new_array(self, name, rank):
        """`name` a float64 array of this rank the nest makes (a value, a copy), found
        now: NewArray, and inference starts over; or checked against what it was found."""
        if name in self.views_bound:
            raise Unsupported(f"{name} is bound to a view and to a new array in the loop")
        if name in self.arrays_bound:
            if self.arrays_bound[name] != rank:
                raise Unsupported(f"{name} is bound to arrays of {rank} and "
                                  f"{self.arrays_bound[name]} dimensions")
            return
        if name in self.locals or name in self.copies:
            raise Unsupported(f"{name} holds a number and an array in the loop")
        given = self.types.get(name)
        if given is not None and (given is not ARRAY or self.arrays[name][:2] != (F8, rank)):
            raise Unsupported(f"{name} is given as a {self.arrays[name][0] if given is ARRAY else given} "
                              f"and bound to a float64 array in the loop")
        self.arrays_bound[name] = rank
        self.types[name] = ARRAY
        self.arrays[name] = (F8, rank, True)
        raise NewArray(name)

    def _view_binding(self, name, value, rank):
        """Type inference of `name = A[...]`, a slice of an array the caller gave: a view,
        whose reads and writes are A's memory (the nest's pointer into it, as NumPy's
        view is), e.g. `x = R[k:, k]` then `v = x.copy()`, `A22 = A[k + 1:, k + 1:]`."""
        if not isinstance(value, ast.Subscript):
            return self._alias_binding(name, value, rank)
        base = value.value.id
        if base not in self.params or base in self.arrays_bound or base in self.copies or \
                base in self.views_bound:
            raise Unsupported(f"{name} is bound to a slice of {base}, an array the nest binds")
        if self.views_bound.get(name, (base, rank)) != (base, rank):
            raise Unsupported(f"{name} is bound to views of different arrays or dimensions")
        if name in self.views_bound:
            return
        if name in self.params or name in self.locals or name in self.copies or \
                name in self.outputs:
            raise Unsupported(f"{name} holds a view and another value, or is read after "
                              f"the loop")
        self.views_bound[name] = (base, rank)
        self.types[name] = ARRAY
        self.arrays[name] = (F8, rank, self.arrays[base][2])
        raise NewArray(name)

    def _alias_binding(self, name, value, rank):
        """`v = w`, both names of arrays the nest makes: NumPy's two names of one array.
        Taken as a copy where that cannot differ: neither name is changed in place but
        right after a plain `X = <new array>` of its own in the same block (`v = w` then
        `w = C @ v; w /= np.linalg.norm(w)`: the copy and the alias hold the same
        values wherever either is read). A name of the caller's array: refused."""
        other = value.id
        if other not in self.arrays_bound or self.arrays_bound[other] != rank:
            raise Unsupported(f"{name} is bound to the array {other} (an alias)")
        if not _aliases_safe(self.loop):
            raise Unsupported(f"{name} is bound to the array {other}, and one of them is "
                              f"changed in place while both hold it")
        self._new_array(name, rank)     # (a copy of `other`'s values, _array_bind)

    def _view_bind(self, name, value, depth):
        """`name = A[...]`: the name's pointer, lengths and strides those of the view."""
        saved, self.lines = self.lines, []
        p, dims = self._view(value)
        self._out(f"a_{name} = {p};")
        for d, (n, st) in enumerate(dims):
            self._out(f"n_{name}_{d} = {n}; s_{name}_{d} = {st};")
        body, self.lines = self.lines, saved
        self._block(body, depth)

    def _array_bind(self, name, value, depth):
        """`name = value`: the value computed into new memory (or into the name's own,
        where the value does not read it and has its size), then the name rebound."""
        saved, self.lines = self.lines, []
        prep = {}
        shape = self._vprep(value, prep)
        dst, size, fresh = self._new(), self._new(), self._new()
        self._out(f"const u64 {size} = {' * '.join(f'(u64){n}' for n in shape)};")
        same = " && ".join(f"n_{name}_{d} == {n}" for d, n in enumerate(shape))
        if not _elementwise_reads(value, name):
            self._out(f"const bool {fresh} = true;")
        else:
            self._out(f"const bool {fresh} = !(o_{name} && {same});")
        self._out(f"double* {dst} = {fresh} ? (double*)malloc({size} * 8 + 8) : (double*)a_{name};")
        self._out(f"if (!{dst}) {_FAIL};")
        strides = self._into_contiguous(dst, value, prep, shape)
        self._out(f"if ({fresh}) {{ if (o_{name}) free(a_{name}); "
                  f"a_{name} = (char*){dst}; o_{name} = true; }}")
        for d, (n, m) in enumerate(zip(shape, strides)):
            self._out(f"n_{name}_{d} = {n}; s_{name}_{d} = ({m}) * 8;")
        body, self.lines = self.lines, saved
        self._block(body, depth)

    def _array_locals(self):
        """Declarations: each bound array's ownership, and the arrays only the nest has."""
        out = []
        for name, rank in self.arrays_bound.items():
            if name not in self.params:
                out.append(f"  char* a_{name} = 0;")
                for d in range(rank):
                    out.append(f"  i64 n_{name}_{d} = 0, s_{name}_{d} = 0;")
            out.append(f"  bool o_{name} = false;")    # a_{name} is memory the nest allocated
        for name, (_, rank) in self.views_bound.items():
            out.append(f"  char* a_{name} = 0;")
            for d in range(rank):
                out.append(f"  i64 n_{name}_{d} = 0, s_{name}_{d} = 0;")
        return out

    def _arrays_out(self, base):
        """The tail: arrays handed back into their slots, the others freed."""
        out = []
        for name in self.arrays_bound:
            if name in self.array_outputs:
                j = base + _SLOTS * self.array_outputs.index(name)
                n1 = f"n_{name}_1" if self.arrays_bound[name] == 2 else "0"
                out.append(f"    if (o_{name}) {{ npc_out[{j}] = (i64)a_{name}; "
                           f"npc_out[{j + 1}] = n_{name}_0; npc_out[{j + 2}] = {n1}; "
                           f"npc_out[{j + 3}] = 1; }}")
            else:
                out.append(f"    if (o_{name}) free(a_{name});")
        return out + [f"  {line}" for line in self._arrays_freed()[len(self.arrays_bound):]]

    def _arrays_freed(self):
        """What the nest allocated and keeps, freed: owned arrays, scratch memory."""
        return [f"  if (o_{name}) free(a_{name});" for name in self.arrays_bound] + \
            [f"  free({h});" for h in self.scratch]

    def _scratch_locals(self):
        return [f"  double* {h} = 0; u64 hc{h[1:]} = 0;" for h in self.scratch]
