"""One-dimensional float64 slices inside a compiled loop nest (codegen/scalar_nest.py):
what linear algebra with loops over k writes, `y[i] = (b[i] - L[i, :i] @ y[:i]) / L[i, i]`,
`v[j:] -= r * Q[j:, k]`, `s = np.sum(x[:i])`.

Taken: a slice with one `a:b` (step 1) of a float64 array, elementwise + - * / of slices
and numbers, unary minus, `u @ v` and np.dot(u, v) of two slice expressions, np.sum(u) and
u.sum(), and a slice as the target of = and += -= *= /=. As in NumPy, the right side is
computed before the target changes: where they overlap other than element for element,
it goes through a temporary. Slices of different lengths stop the nest (NumPy raises, or
broadcasts a length-1 side: the Python loop does it). A slice bound to a name is a view
in NumPy, whose aliasing this does not follow: refused. Dot products and sums add in
order, so their last bits may differ from BLAS's and NumPy's pairwise sums, as the
fused reductions' do."""
import ast

from .scalar_nest_types import ARRAY, F8, VEC, Unsupported

_OPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}
_FAIL = "goto npc_fail"


def slice_type(arrays, types, sub):
    """VEC for a subscript with one slice of a float64 array, else Unsupported."""
    name = sub.value.id
    if types.get(name) is not ARRAY:
        raise Unsupported(f"{name}[...] where {name} is not an array")
    dtype, ndim, _ = arrays[name]
    idx = sub.slice.elts if isinstance(sub.slice, ast.Tuple) else [sub.slice]
    if len(idx) != ndim or sum(isinstance(x, ast.Slice) for x in idx) != 1:
        raise Unsupported(f"{name} sliced to more than one dimension")
    if dtype != F8:
        raise Unsupported(f"a slice of {name}, a {dtype} array (slices take float64)")
    return VEC


class VectorCode:
    """Mixed into scalar_nest.Nest: rendering of slices, their arithmetic and stores."""

    def _view(self, sub):
        """(pointer, length, byte stride) C names of a slice, declared here."""
        name = sub.value.id
        idx = sub.slice.elts if isinstance(sub.slice, ast.Tuple) else [sub.slice]
        p, n, s = self._new(), self._new(), self._new()
        off = []
        for d, x in enumerate(idx):
            dim = f"n_{name}_{d}"
            if isinstance(x, ast.Slice):
                if x.step is not None:
                    raise Unsupported("a slice with a step")
                lo = self._new()
                hi = self._new()
                self._out(f"i64 {lo} = {self._int_expr(x.lower) if x.lower else '0'}; "
                          f"i64 {hi} = {self._int_expr(x.upper) if x.upper else dim};")
                for v in (lo, hi):   # Python's slice bounds: from the end, then clamped
                    self._out(f"if ({v} < 0) {{ {v} += {dim}; if ({v} < 0) {v} = 0; }} "
                              f"else if ({v} > {dim}) {v} = {dim};")
                self._out(f"const i64 {n} = {hi} > {lo} ? {hi} - {lo} : 0; "
                          f"const i64 {s} = s_{name}_{d};")
                off.append(f"{lo} * s_{name}_{d}")
            else:
                k = self._new()
                self._out(f"i64 {k} = {self._int_expr(x)}; if ({k} < 0) {k} += {dim}; "
                          f"if ((u64){k} >= (u64){dim}) {_FAIL};")
                off.append(f"{k} * s_{name}_{d}")
        self._out(f"char* const {p} = a_{name} + {' + '.join(off)};")
        return p, n, s

    def _vprep(self, e, leaves):
        """Declare what an elementwise slice expression reads: views (leaves gets
        (node, view)), and its number parts computed once, before the element loop."""
        t = self._typ(e)
        if t is not VEC:
            tmp = self._new()
            self._out(f"const double {tmp} = (double)({self._expr(e)});")
            leaves.append((e, tmp))
            return
        if isinstance(e, ast.Subscript):
            leaves.append((e, self._view(e)))
        elif isinstance(e, ast.BinOp):
            self._vprep(e.left, leaves)
            self._vprep(e.right, leaves)
        elif isinstance(e, ast.UnaryOp):
            self._vprep(e.operand, leaves)
        else:
            raise Unsupported(f"{type(e).__name__} of slices")

    def _velem(self, e, leaves, k):
        """The C expression of element k of an elementwise slice expression."""
        got = next(v for n, v in leaves if n is e) if any(n is e for n, _ in leaves) else None
        if isinstance(got, str):
            return got
        if got is not None:
            p, _, s = got
            return f"(*(double*)({p} + {k} * {s}))"
        if isinstance(e, ast.BinOp):
            if type(e.op) not in _OPS:
                raise Unsupported("an operator other than + - * / on slices")
            return (f"({self._velem(e.left, leaves, k)} {_OPS[type(e.op)]} "
                    f"{self._velem(e.right, leaves, k)})")
        if isinstance(e, ast.UnaryOp):
            sign = "-" if isinstance(e.op, ast.USub) else "+"
            return f"({sign}{self._velem(e.operand, leaves, k)})"
        raise Unsupported(f"{type(e).__name__} of slices")

    def _length_checks(self, leaves, n):
        for _, v in leaves:
            if not isinstance(v, str):
                self._out(f"if ({v[1]} != {n}) {_FAIL};")

    def _vector_store(self, tgt, value, op, depth):
        """target[a:b] = value, or target[a:b] op= value (value: a slice expression or
        a number), the right side computed before the target changes."""
        saved, self.lines = self.lines, []
        p, n, s = self._view(tgt)
        leaves = []
        self._vprep(value, leaves)
        self._length_checks(leaves, n)
        views = [v for _, v in leaves if not isinstance(v, str)]
        # overlap other than element for element: through a temporary, as NumPy does
        over = " || ".join(
            f"(!({q} == {p} && {qs} == {s}) && {qn} && {n} && "
            f"npc_lo({q}, {qn}, {qs}) < npc_hi({p}, {n}, {s}) && "
            f"npc_lo({p}, {n}, {s}) < npc_hi({q}, {qn}, {qs}))" for q, qn, qs in views)
        k, tmp = self._new(), self._new()
        val = self._velem(value, leaves, k)
        elem = f"(*(double*)({p} + {k} * {s}))"
        put = (lambda v: f"{elem} = {v};") if op is None else \
            (lambda v: f"{elem} = {elem} {op} {v};")
        if over:
            self._out(f"if ({over}) {{")
            self._out(f"  double* {tmp} = (double*)malloc((u64)({n} > 0 ? {n} : 1) * 8);")
            self._out(f"  if (!{tmp}) {_FAIL};")
            self._out(f"  for (i64 {k} = 0; {k} < {n}; ++{k}) {tmp}[{k}] = {val};")
            self._out(f"  for (i64 {k} = 0; {k} < {n}; ++{k}) {put(f'{tmp}[{k}]')}")
            self._out(f"  free({tmp});")
            self._out("} else {")
            self._out(f"  for (i64 {k} = 0; {k} < {n}; ++{k}) {put(val)}")
            self._out("}")
        else:
            self._out(f"for (i64 {k} = 0; {k} < {n}; ++{k}) {put(val)}")
        body, self.lines = self.lines, saved
        self._out("{", depth)
        for line in body:
            self._out(line, depth + 1)
        self._out("}", depth)

    def _reduction(self, a, b=None):
        """A statement expression: the sum of a slice expression, or the dot product of
        two, added in order."""
        saved, self.lines = self.lines, []
        la, lb = [], []
        self._vprep(a, la)
        if b is not None:
            self._vprep(b, lb)
        n = next(v for _, v in la + lb if not isinstance(v, str))[1]
        self._length_checks(la + lb, n)
        k, acc = self._new(), self._new()
        term = self._velem(a, la, k)
        if b is not None:
            term = f"{term} * {self._velem(b, lb, k)}"
        self._out(f"double {acc} = 0.0; for (i64 {k} = 0; {k} < {n}; ++{k}) {acc} += {term};")
        body, self.lines = self.lines, saved
        return "({ " + " ".join(body) + f" {acc}; }})"

    def _vector_operand(self, e):
        """What a dot product or sum takes: a slice, or arithmetic of slices."""
        if self._typ(e) is not VEC:
            raise Unsupported("a dot product or sum of something other than a slice")
        return e


HELPERS = """\
extern "C" void* malloc(u64); extern "C" void free(void*);
static inline char* npc_lo(char* p, i64 n, i64 s) { return s >= 0 ? p : p + (n - 1) * s; }
static inline char* npc_hi(char* p, i64 n, i64 s) { return (s >= 0 ? p + (n - 1) * s : p) + 8; }
"""
