"""Float64 slices inside a compiled loop nest (codegen/scalar_nest.py): what linear
algebra with loops over k writes, `y[i] = (b[i] - L[i, :i] @ y[:i]) / L[i, i]`,
`L[k + 1:, k] = (A[k + 1:, k] - L[k + 1:, :k] @ L[k, :k]) / L[k, k]`,
`A[k + 1:, k + 1:] -= np.outer(A[k + 1:, k], A[k, k + 1:])`.

Taken: slices with `a:b:c` in one dimension (VEC) or both dimensions of a 2-D
array (MAT) of a float64 array; elementwise + - * / of slices of one shape and numbers;
unary minus; np.maximum and np.minimum of them; matrix @ vector, vector @ matrix, vector @ vector and np.dot of the same;
np.outer of two vectors; np.sum, .sum() and np.linalg.norm of a vector; abs, np.abs
and np.fabs elementwise; np.max, np.min, .max() and .min() of any of these (NaN
propagates, as NumPy's); a whole float64 array of one or two dimensions as `u[:]` or
`u[:, :]` (a convergence test `np.abs(u - old).max()`); a slice as the target of = and
+= -= *= /=. As in NumPy, the right side is computed before the target
changes: where it reads memory the target covers other than element for element, it
goes through a temporary. Shapes that differ stop the nest (NumPy raises, or
broadcasts: the Python loop does either). A slice bound to a name is a view in NumPy,
whose aliasing this does not follow: refused. Sums add in NumPy's pairwise order (its
bits); dot products and norms add in sixteen interleaved partial sums (BLAS, whose result
NumPy's is, has an order of its own: the last bits may differ).

A number stored into a slice (`is_prime[p * p::p] = False`, `A[i, :] = 0`) is a fill,
taken for arrays of every numeric dtype."""
import ast

from .numpy_sum_order import unbuffered_piece
from .scalar_nest_predicates import is_where, sign_of
from .scalar_nest_types import ARRAY, CT, F8, MAT, PYFLOAT, UNARY_MATH, VEC, Unsupported, \
    method_of, numpy_call

_OPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}
_FAIL = "goto npc_fail"
_EXTREMA = ("maximum", "minimum")
# partial sums of a dot product (_dot; four npc_d4 in _unit_dot): enough independent
# additions to cover their latency (one vector of four ran at 1 multiply-add a cycle)
DOT_LANES = 16
RANK = {VEC: 1, MAT: 2}


def slice_type(arrays, types, sub):
    """VEC or MAT for a subscript with slices of a float64 array, else Unsupported."""
    name = sub.value.id
    if types.get(name) is not ARRAY:
        raise Unsupported(f"{name}[...] where {name} is not an array")
    dtype, ndim, _ = arrays[name]
    idx = sub.slice.elts if isinstance(sub.slice, ast.Tuple) else [sub.slice]
    new_axes = sum(is_new_axis(x) for x in idx)
    if len(idx) - new_axes != ndim:
        raise Unsupported(f"{name} has {ndim} dimensions and is indexed by {len(idx)}")
    if dtype != F8:
        raise Unsupported(f"a slice of {name}, a {dtype} array (slices take float64)")
    rank = sum(isinstance(x, ast.Slice) for x in idx) + new_axes
    if rank > 2:
        raise Unsupported(f"a slice of {name} of more than two dimensions")
    return VEC if rank == 1 else MAT


def is_new_axis(x):
    """`None` in a subscript (np.newaxis): an axis of length 1, broadcast against the
    other operand's (`A[k + 1:, k, None] * A[None, k, k + 1:]`, an outer product)."""
    return isinstance(x, ast.Constant) and x.value is None


def whole_type(arrays, name):
    """VEC or MAT for a whole float64 array of one or two dimensions read in slice
    arithmetic (`np.abs(u - old).max()`), as `u[:]`/`u[:, :]`; else Unsupported."""
    dtype, ndim, _ = arrays[name]
    if dtype != F8 or ndim not in (1, 2):
        raise Unsupported(f"the array {name} is used as a number")
    return VEC if ndim == 1 else MAT


_ABS = ("abs", "absolute", "fabs")
# the functions whose result's element k reads only their operands' elements k
ELEMENTWISE_CALLS = _ABS + _EXTREMA + tuple(UNARY_MATH)
_EXTREME = {"max": "max", "amax": "max", "min": "min", "amin": "min"}


def _abs_call(nest, e):
    """The operand of abs(E), np.abs(E), np.absolute(E) or np.fabs(E), else None."""
    if not isinstance(e, ast.Call) or len(e.args) != 1 or e.keywords:
        return None
    f = e.func
    # (a user's own abs, shadowing the builtin, is refused when the nest runs:
    # native_loop.run checks every builtin it calls)
    if (isinstance(f, ast.Name) and f.id == "abs") or numpy_call(nest, f, _ABS):
        return e.args[0]
    return None


def unary_call(nest, e):
    """(operand, libm function) of np.log(E), np.exp(E), np.sqrt(E), ... (one positional
    argument, a function of NumPy's that is libm's of one double), else None. Of a slice
    expression it is elementwise (math.X of an array raises, and is not one)."""
    if not isinstance(e, ast.Call) or len(e.args) != 1 or e.keywords or \
            not numpy_call(nest, e.func, UNARY_MATH):
        return None
    return e.args[0], UNARY_MATH[e.func.attr]


def copy_of(nest, e):
    """The receiver of E.copy(), else None."""
    return method_of(nest, e, ("copy",))


_TO_FLOAT64 = ("float64", "double", "float_")


def astype_of(nest, e):
    """The receiver of E.astype(np.float64) (or float), else None."""
    f = getattr(e, "func", None)
    if not (isinstance(e, ast.Call) and isinstance(f, ast.Attribute) and f.attr == "astype"
            and len(e.args) == 1 and not e.keywords):
        return None
    d = e.args[0]
    if (isinstance(d, ast.Name) and d.id == "float") or \
            (isinstance(d, ast.Attribute) and d.attr in _TO_FLOAT64 and
             nest.modules.get(getattr(d.value, "id", None)) == "numpy"):
        return f.value
    return None


# new float64 arrays: np.zeros(n), np.zeros((n, m)), np.zeros_like(x), np.full(n, v), ...
# -> the value of every element (np.empty's are NumPy's leftovers: 0 serves)
CONSTRUCTED = {"zeros": "0.0", "ones": "1.0", "empty": "0.0", "full": None,
               "zeros_like": "0.0", "ones_like": "1.0", "empty_like": "0.0"}


def constructed(nest, e):
    """The name of np.zeros(...) and the like (CONSTRUCTED), else None."""
    if isinstance(e, ast.Call) and not e.keywords and e.args and \
            numpy_call(nest, e.func, CONSTRUCTED):
        return e.func.attr
    return None


def mean_of(nest, e):
    """The operand of np.mean(E) or E.mean(), else None."""
    got = method_of(nest, e, ("mean",))
    if got is None and isinstance(e, ast.Call) and not e.keywords and len(e.args) == 1 and \
            numpy_call(nest, e.func, ("mean",)):
        got = e.args[0]
    return got


def median_of(nest, e):
    """The operand of np.median(E), else None."""
    if isinstance(e, ast.Call) and not e.keywords and len(e.args) == 1 and \
            numpy_call(nest, e.func, ("median",)):
        return e.args[0]
    return None


def diag_of(nest, e):
    """The argument of np.diag(X) (no offset), else None."""
    if isinstance(e, ast.Call) and len(e.args) == 1 and not e.keywords and \
            numpy_call(nest, e.func, ("diag",)):
        return e.args[0]
    return None


def sign_of_slices(nest, e):
    """Is `e` np.sign of a slice expression?"""
    return isinstance(e, ast.Call) and len(e.args) == 1 and not e.keywords and \
        numpy_call(nest, e.func, ("sign",)) and nest._typ(e.args[0]) in (VEC, MAT)


def extreme_of(nest, e):
    """(operand, 'max' or 'min') of E.max(), E.min(), np.max(E), np.amin(E), ... with
    no axis, where E is a slice expression; else None."""
    if not isinstance(e, ast.Call) or e.keywords:
        return None
    f = e.func
    if isinstance(f, ast.Attribute) and f.attr in ("max", "min") and not e.args and \
            not (isinstance(f.value, ast.Name) and f.value.id in nest.modules):
        operand = f.value
    elif numpy_call(nest, f, _EXTREME) and len(e.args) == 1:
        operand = e.args[0]
    else:
        return None
    if nest._typ(operand) not in (VEC, MAT):
        return None
    return operand, _EXTREME[f.attr]


def reduced_or_abs_type(nest, e):
    """The type of a reduction to a number (F8) or of an absolute value of a slice
    expression (its rank); None where `e` is neither."""
    if extreme_of(nest, e) is not None:
        return F8
    x = _abs_call(nest, e)
    t = nest._typ(x) if x is not None else None
    return t if t in (VEC, MAT) else None


def squared(e):
    """Is `e` X ** 2 (a literal 2)? Of a slice of floats NumPy computes it as X * X: the
    one power here, since other exponents go through pow(), whose rounding is libm's."""
    return isinstance(e, ast.BinOp) and isinstance(e.op, ast.Pow) and \
        isinstance(e.right, ast.Constant) and type(e.right.value) is int and e.right.value == 2


def full_slices(n):
    """n `:` subscripts."""
    return [ast.Slice(None, None, None) for _ in range(n)]


def whole_subscript(name, ndim, ctx):
    """`u[:]`, `u[:, :]`, ...: the array named `name`, all of it, as a slice."""
    full = full_slices(ndim)
    return ast.Subscript(value=ast.Name(name, ast.Load()),
                         slice=ast.Tuple(full, ast.Load()) if len(full) > 1 else full[0],
                         ctx=ctx)


def _whole(name, t):
    """`u` read whole, as the subscript `u[:]` or `u[:, :]`."""
    return whole_subscript(name.id, RANK[t], ast.Load())


def extremum(a, b, ctype, name, x, y, floats=True):
    """C of np.maximum / np.minimum of two numbers (x, y: fresh names). Floats as NumPy:
    a NaN on either side is the result, and equal values give the first (-0.0 and 0.0).
    No ordered comparison of floats is made: one that sees a NaN raises the invalid
    flag (and LLVM, free to rewrite selects, may compare before the NaN test), which
    stops the nest as for a warning NumPy would give, and np.maximum gives none. The
    order is compared on the bits as integers instead (sign-magnitude made monotone)."""
    gt = ">" if name == "maximum" else "<"
    if not floats:
        return f"({{ const {ctype} {x} = {a}, {y} = {b}; ({x} {gt}= {y}) ? {x} : {y}; }})"
    it, mask = ("i64", "0x7fffffffffffffffLL") if ctype == "double" else ("i32", "0x7fffffff")
    bits = 63 if it == "i64" else 31
    key = lambda v: (f"(__builtin_bit_cast({it}, {v}) ^ "   # noqa: E731
                     f"((__builtin_bit_cast({it}, {v}) >> {bits}) & {mask}))")
    return (f"({{ const {ctype} {x} = {a}, {y} = {b}; "
            f"({x} != {x}) ? {x} : ({y} != {y}) ? {y} : "
            f"({x} == {y} || {key(x)} {gt} {key(y)}) ? {x} : {y}; }})")


def scalar_loops(ks, shape):
    """`for` loops over these lengths that LLVM leaves as they are: the versions that
    rarely run (strided views, an overlap's temporary) beside one it vectorizes. Each
    vectorized and interleaved, a time step of 10 statements made a nest of 64 loops
    that took 1.8 s to compile."""
    keep = '_Pragma("clang loop vectorize(disable) interleave(disable) unroll(disable)") '
    return " ".join(f"{keep}for (i64 {k} = 0; {k} < {n}; ++{k})" for k, n in zip(ks, shape))


def _unit(view, d):
    """The view with the stride of its dimension d the constant 8 (a version of a loop
    for where it is contiguous along d: LLVM vectorizes constant strides)."""
    dims = list(view[1])
    dims[d] = (dims[d][0], "8")
    return (view[0], dims)


def _pairwise(terms):
    """C of the sum of partial sums, added pairwise: ((a + b) + (c + d)) + ..."""
    while len(terms) > 1:
        terms = [f"({x} + {y})" for x, y in zip(terms[::2], terms[1::2])]
    return terms[0]


def _transposed(e):
    """X for `X.T` with X a slice or an array name, else None."""
    if isinstance(e, ast.Attribute) and e.attr == "T" and \
            isinstance(e.value, (ast.Subscript, ast.Name)):
        return e.value
    return None


def matmul_type(a, b):
    if (a, b) in ((VEC, VEC),):
        return F8
    if (a, b) in ((MAT, VEC), (VEC, MAT)):
        return VEC
    raise Unsupported("@ of two matrices (or of a number)")


class VectorCode:
    """Mixed into scalar_nest.Nest: rendering of slices, their arithmetic and stores."""

    def _view(self, sub):
        """A slice's C names, declared here: (pointer, [(length, byte stride)] per
        sliced dimension)."""
        name = sub.value.id
        idx = sub.slice.elts if isinstance(sub.slice, ast.Tuple) else [sub.slice]
        p = self._new()
        off, dims = [], []
        d = -1          # the array's dimension x indexes
        for x in idx:
            if is_new_axis(x):      # length 1, stride 0: its one element at every index
                dims.append(("1", "0"))
                continue
            d += 1
            dim = f"n_{name}_{d}"
            if isinstance(x, ast.Slice):
                lo, hi, n, st, s = (self._new() for _ in range(5))
                # Python's slice of a step: a missing bound is the far end for its sign,
                # bounds count from the end when negative and are clamped, a step of 0
                # raises (ValueError)
                self._out(f"const i64 {st} = {self._int_expr(x.step) if x.step else '1'}; "
                          f"if ({st} == 0 || {st} < -0x7fffffffffffffffLL) {_FAIL};")
                self._out(f"i64 {lo} = {self._int_expr(x.lower) if x.lower else f'{st} < 0 ? 0x7fffffffffffffffLL : 0'}; "
                          f"i64 {hi} = {self._int_expr(x.upper) if x.upper else f'{st} < 0 ? (-0x7fffffffffffffffLL - 1) : 0x7fffffffffffffffLL'};")
                for v in (lo, hi):
                    self._out(f"if ({v} < 0) {{ {v} += {dim}; if ({v} < 0) {v} = {st} < 0 ? -1 : 0; }} "
                              f"else if ({v} >= {dim}) {v} = {st} < 0 ? {dim} - 1 : {dim};")
                self._out(f"const i64 {n} = {st} < 0 ? ({hi} < {lo} ? ({lo} - {hi} - 1) / (-{st}) + 1 : 0) "
                          f": ({lo} < {hi} ? ({hi} - {lo} - 1) / {st} + 1 : 0);")
                self._out(f"const i64 {s} = s_{name}_{d} * {st};")
                off.append(f"({n} ? {lo} : 0) * s_{name}_{d}")
                dims.append((n, s))
            else:
                off.append(f"{self._index(x, dim)} * s_{name}_{d}")
        self._out(f"char* const {p} = a_{name} + {' + '.join(off or ['0'])};")
        # (a name bound to a slice, `x = R[k:, k]`, is R's memory: overlaps are R's)
        self.view_names[p] = self.views_bound.get(name, (name,))[0]
        return p, dims

    # ----------------------------------------------------------------- expressions
    def _vprep(self, e, prep):
        """Declare what a slice expression reads (prep[id(node)]: a view, or a number
        computed once before the loops) and check its shapes agree: its shape, a list of
        C lengths."""
        t = self._typ(e)
        if t is not VEC and t is not MAT:
            tmp = self._new()
            self._out(f"const double {tmp} = (double)({self._expr(e)});")
            prep[id(e)] = tmp
            return []
        if is_where(self, e):
            return self._where_prep(e, prep)
        if copy_of(self, e) is not None:
            return self._vprep(copy_of(self, e), prep)
        if astype_of(self, e) is not None:
            return self._astype_prep(e, prep)
        if sign_of_slices(self, e):
            return self._vprep(e.args[0], prep)
        if diag_of(self, e) is not None:
            return self._diag_prep(e, prep)
        if constructed(self, e) is not None:
            return self._constructed_prep(e, prep)
        if _transposed(e) is not None:      # V[:, :j].T: the view, its dimensions reversed
            inner = _transposed(e)
            p, dims = self._view(inner if isinstance(inner, ast.Subscript) else
                                 _whole(inner, self._typ(inner)))
            v = prep[id(e)] = (p, dims[::-1])
            prep.setdefault("views", []).append(v)
            return [n for n, _ in v[1]]
        if isinstance(e, (ast.Subscript, ast.Name)):
            v = self._view(e if isinstance(e, ast.Subscript) else _whole(e, t))
            prep[id(e)] = v
            prep.setdefault("views", []).append(v)
            return [n for n, _ in v[1]]
        if isinstance(e, ast.UnaryOp):
            return self._vprep(e.operand, prep)
        if _abs_call(self, e) is not None or unary_call(self, e) is not None:
            return self._vprep(e.args[0], prep)
        if isinstance(e, ast.BinOp) and isinstance(e.op, ast.MatMult):
            return self._matmul_prep(e.left, e.right, prep)
        if isinstance(e, ast.BinOp) or (isinstance(e, ast.Call) and e.func.attr in _EXTREMA):
            # elementwise of two operands: u * v + c, np.maximum(u, v + c)
            left, right = (e.left, e.right) if isinstance(e, ast.BinOp) else e.args
            a, b = self._vprep(left, prep), self._vprep(right, prep)
            if a and b:
                return self._same(a, b)
            return a or b
        if isinstance(e, ast.Call):       # np.outer(u, v), np.dot(M, v)
            args = [self._operand(x) for x in e.args]
            if e.func.attr == "outer":
                # an operand that is an expression (`np.outer(Q @ v, v)`) is computed once
                # first: inline, each of its elements was computed again per row or column
                # of the product (a Householder update ran 25x slower than NumPy)
                return self._hoisted(args[0], prep) + self._hoisted(args[1], prep)
            return self._matmul_prep(args[0], args[1], prep)
        raise Unsupported(f"{type(e).__name__} of slices")

    def _astype_type(self, e):
        """VEC or MAT for X[...].astype(np.float64) (or of a whole array) of a numeric
        array of any dtype: float64 values, exactly those NumPy's cast makes."""
        src = astype_of(self, e)
        name = src.id if isinstance(src, ast.Name) else \
            src.value.id if isinstance(src, ast.Subscript) and \
            isinstance(src.value, ast.Name) else None
        if name is None or self.types.get(name) is not ARRAY:
            raise Unsupported(".astype() of something other than a slice or an array")
        dtype, ndim, _ = self.arrays[name]
        if dtype.kind not in "biuf":
            raise Unsupported(f".astype() of a {dtype} array")
        if isinstance(src, ast.Name):
            rank = ndim
        else:
            idx = src.slice.elts if isinstance(src.slice, ast.Tuple) else [src.slice]
            if len(idx) != ndim:
                raise Unsupported(f"{name} has {ndim} dimensions and is indexed by {len(idx)}")
            for x in idx:
                for b in ([x.lower, x.upper, x.step] if isinstance(x, ast.Slice) else [x]):
                    if b is not None:
                        self._want_int(b)
            rank = sum(isinstance(x, ast.Slice) for x in idx)
        if rank not in (1, 2):
            raise Unsupported(".astype() of other than one or two dimensions")
        return VEC if rank == 1 else MAT

    def _astype_prep(self, e, prep):
        """Its values converted once into the nest's scratch memory (contiguous doubles),
        which the expression then reads as any view."""
        src = astype_of(self, e)
        name = src.id if isinstance(src, ast.Name) else src.value.id
        dtype = self.arrays[name][0]
        p, dims = self._view(src if isinstance(src, ast.Subscript) else
                             whole_subscript(name, self.arrays[name][1], ast.Load()))
        shape = [n for n, _ in dims]
        buf = self._scratch(" * ".join(f"(u64){n}" for n in shape))
        ks = tuple(self._new() for _ in shape)
        strides = self._strides(shape)
        off = " + ".join(f"{k} * {s}" for k, (_, s) in zip(ks, dims))
        flat = " + ".join(f"{k} * {m}" for k, m in zip(ks, strides))
        loops = " ".join(f"for (i64 {k} = 0; {k} < {n}; ++{k})" for k, n in zip(ks, shape))
        self._out(f"{loops} {buf}[{flat}] = (double)(*({CT[dtype]}*)({p} + {off}));")
        prep[id(e)] = (f"((char*){buf})", [(n, f"({m}) * 8") for n, m in zip(shape, strides)])
        return shape

    def _constructed_type(self, e):
        """np.zeros(n) and the like: VEC or MAT of float64 (another dtype: refused)."""
        name = constructed(self, e)
        shape = e.args[0]
        if name.endswith("_like"):
            t = self._typ(shape)
            if t not in (VEC, MAT) or (isinstance(shape, ast.Name) and
                                       self.arrays[shape.id][0] != F8):
                raise Unsupported(f"np.{name} of something other than a float64 slice")
            return t
        dims = shape.elts if isinstance(shape, ast.Tuple) else [shape]
        if len(dims) not in (1, 2):
            raise Unsupported(f"np.{name} of other than one or two dimensions")
        for d in dims:
            self._want_int(d)
        if name == "full" and self._typ(e.args[1]) not in (PYFLOAT, F8):
            raise Unsupported("np.full of a value that does not make a float64 array")
        return VEC if len(dims) == 1 else MAT

    def _constructed_prep(self, e, prep):
        name = constructed(self, e)
        if name == "full":
            self._vprep(e.args[1], prep)     # the value, once, as a double
        if name.endswith("_like"):
            inner = {}
            return self._vprep(e.args[0], inner)     # its shape (its values unread)
        dims = e.args[0].elts if isinstance(e.args[0], ast.Tuple) else [e.args[0]]
        shape = []
        for d in dims:
            n = self._new()
            # a negative dimension is NumPy's ValueError: the Python loop raises it
            self._out(f"const i64 {n} = {self._int_expr(d)}; if ({n} < 0) {_FAIL};")
            shape.append(n)
        return shape

    def _mean(self, operand):
        """np.mean: NumPy's sum (pairwise) divided by the count, in float64; of nothing,
        NaN with NumPy's warning: the nest stops. A statement expression."""
        saved, self.lines = self.lines, []
        shape = self._vprep(operand, {})
        x = self._new()
        self._out(f"const i64 {x} = {' * '.join(shape)}; if ({x} == 0) {_FAIL};")
        body, self.lines = self.lines, saved
        total = self._reduction(operand)
        return "({ " + " ".join(body) + f" {total} / (double){x}; }})"

    def _median(self, operand):
        """np.median: the middle of the sorted elements, or the mean of the two middle ones,
        as NumPy's np.mean of its partition's one or two: a sum from 0.0 (so a zero median
        is +0.0 whatever the zeros' signs), divided by the count. Any sort gives those
        elements. A NaN among them (NumPy's NaN result) and an empty operand (NumPy's
        warning) stop the nest. A statement expression."""
        saved, self.lines = self.lines, []
        prep = {}
        shape = self._vprep(operand, prep)
        n, buf, k, m, nan, small = (self._new() for _ in range(6))
        self._out(f"const i64 {n} = {' * '.join(shape)}; if ({n} == 0) {_FAIL};")
        self._out(f"double {small}[64]; double* {buf} = {n} <= 64 ? {small} : "
                  f"(double*)malloc({n} * 8); if (!{buf}) {_FAIL};")
        ks = (k,) if len(shape) == 1 else (f"({k} / {shape[1]})", f"({k} % {shape[1]})")
        self._out(f"bool {nan} = false;")
        self._out(f"for (i64 {k} = 0; {k} < {n}; ++{k}) {{ const double {m} = "
                  f"{self._velem(operand, prep, ks)}; {buf}[{k}] = {m}; "
                  f"{nan} |= __builtin_isnan({m}); }}")
        self._out(f"double {m} = 0.0; if (!{nan}) {{ npc_sort_f8({buf}, {n}); "
                  f"{m} = {n} % 2 ? 0.0 + {buf}[{n} / 2] : "
                  f"(0.0 + {buf}[{n} / 2 - 1] + {buf}[{n} / 2]) / 2.0; }}")
        self._out(f"if ({buf} != {small}) free({buf});")
        self._out(f"if ({nan}) {_FAIL};")
        body, self.lines = self.lines, saved
        return "({ " + " ".join(body) + f" {m}; }})"

    def _diag_type(self, e):
        """np.diag of a matrix view (its diagonal: a view) or of a vector expression (the
        square matrix holding it on its diagonal)."""
        x = diag_of(self, e)
        t = self._typ(x)
        if t is MAT and isinstance(x, (ast.Subscript, ast.Name)):
            return VEC
        if t is VEC:
            return MAT
        raise Unsupported("np.diag of something other than a matrix view or a vector")

    def _diag_prep(self, e, prep):
        x = diag_of(self, e)
        if self._typ(x) is VEC:
            n = self._vprep(x, prep)[0]
            return [n, n]
        p, dims = self._view(x if isinstance(x, ast.Subscript) else
                             whole_subscript(x.id, 2, ast.Load()))
        n = self._new()
        (n0, s0), (n1, s1) = dims
        self._out(f"const i64 {n} = {n0} < {n1} ? {n0} : {n1};")
        v = prep[id(e)] = (p, [(n, f"({s0} + {s1})")])
        # (its element k is the view's (k, k): a store into the matrix is not element
        # for element)
        prep.setdefault("views", []).append(v)
        prep.setdefault("crossing", []).append(v)
        return [n]

    def _matmul_prep(self, a, b, prep):
        before = len(prep.get("views", []))
        sa, sb = (self._hoisted(self._operand(x), prep) for x in (a, b))
        # an element of a product reads a whole row or column of these: a store into
        # the same view is not element for element (`R[k:, k:] -= np.outer(v, v @
        # R[k:, k:])` reads columns the store has already written)
        prep.setdefault("crossing", []).extend(prep.get("views", [])[before:])
        if len(sa) > 2 or len(sb) > 2:
            # (NumPy's @ and np.dot of more dimensions are batched or summed otherwise)
            raise Unsupported("@ or np.dot of a slice of more than two dimensions")
        self._out(f"if ({sa[-1]} != {sb[0]}) {_FAIL};")
        return sa[:-1] + sb[1:]

    def _hoisted(self, e, prep):
        """An operand of @ or np.dot: a view as it is, an expression (`V[:, :j] @
        (V[:, :j].T @ v)`) computed first into scratch memory of the nest's (an element
        of a product is a dot product over the other operand: computed in place, the
        inner product would be recomputed for every element of the outer). Its shape."""
        if isinstance(e, (ast.Subscript, ast.Name)) or _transposed(e) is not None:
            return self._vprep(e, prep)
        inner = {}
        shape = self._vprep(e, inner)
        buf = self._scratch(" * ".join(f"(u64){n}" for n in shape))
        strides = self._into_contiguous(buf, e, inner, shape)
        prep[id(e)] = (f"((char*){buf})", [(n, f"({m}) * 8") for n, m in zip(shape, strides)])
        return shape

    def _into_contiguous(self, dst, value, prep, shape):
        """Statements computing a slice expression (its views in prep, its shape) into the
        C-contiguous doubles at dst: a version with its operands' last strides the constant
        8 (_unit_last) where they are contiguous, vectorized, and one as they come. Its
        element strides."""
        ks = tuple(self._new() for _ in shape)
        strides = self._strides(shape)
        flat = " + ".join(f"{k} * {m}" for k, m in zip(ks, strides))
        val = self._velem(value, prep, ks)
        unit = self._unit_last(("", [(n, "8") for n in shape]), prep)
        loops = " ".join(f"for (i64 {k} = 0; {k} < {n}; ++{k})" for k, n in zip(ks, shape))
        if unit is None:
            self._out(f"{loops} {dst}[{flat}] = {val};")
        else:
            self._out(f"if ({unit[0]}) {{ {loops} {dst}[{flat}] = {self._velem(value, unit[2], ks)}; }} "
                      f"else {{ {scalar_loops(ks, shape)} {dst}[{flat}] = {val}; }}")
        return strides

    def _scratch(self, size):
        """A double* of at least `size` elements, the nest's own: one per place that
        asks, grown as needed and freed when the nest ends."""
        name, cap = f"h{len(self.scratch)}", f"hc{len(self.scratch)}"
        self.scratch.append(name)
        n = self._new()
        self._out(f"const u64 {n} = {size};")
        self._out(f"if ({n} > {cap}) {{ double* g = (double*)realloc({name}, {n} * 8 + 8); "
                  f"if (!g) {_FAIL}; {name} = g; {cap} = {n}; }}")
        return name

    def _same(self, a, b):
        """The shape of an elementwise operation of operands of shapes a and b: equal
        lengths, or a new axis's 1 against any (NumPy's broadcasting of a length-1 axis
        known from the code; one of length 1 at run time stops the nest, and the Python
        loop broadcasts it)."""
        if len(a) != len(b):
            raise Unsupported("slices of different dimensions in one expression")
        out = []
        for x, y in zip(a, b):
            if x == "1" or y == "1":
                out.append(y if x == "1" else x)
                continue
            self._out(f"if ({x} != {y}) {_FAIL};")
            out.append(x)
        return out

    def _operand(self, e):
        """An operand of @, np.dot or np.outer: a slice itself, or a whole float64 array
        of one or two dimensions read as one (`A[i] @ x`), the same node each time; of
        @ and np.dot also a slice expression (_hoisted)."""
        if isinstance(e, ast.Name) and self.types.get(e.id) is ARRAY:
            wholes = self.__dict__.setdefault("_wholes", {})
            if id(e) not in wholes:
                wholes[id(e)] = (e, _whole(e, whole_type(self.arrays, e.id)))
            return wholes[id(e)][1]
        if self._typ(e) not in (VEC, MAT):
            raise Unsupported("@, np.dot or np.outer of something other than a slice")
        return e

    def _velem(self, e, prep, ks):
        """The C expression of the element at indices ks of a slice expression."""
        got = prep.get(id(e))
        if isinstance(got, str):
            return got
        if got is not None:
            return self._at(got, ks)
        if is_where(self, e):
            return self._where_elem(e, prep, ks)
        if copy_of(self, e) is not None:
            return self._velem(copy_of(self, e), prep, ks)
        if constructed(self, e) is not None:
            name = constructed(self, e)
            return CONSTRUCTED[name] if name != "full" else prep[id(e.args[1])]
        if diag_of(self, e) is not None:     # np.diag(v): the matrix with v on its diagonal
            v = diag_of(self, e)
            return f"({ks[0]} == {ks[1]} ? (double)({self._velem(v, prep, ks[:1])}) : 0.0)"
        if sign_of_slices(self, e):
            x = self._new()
            return (f"({{ const double {x} = {self._velem(e.args[0], prep, ks)}; "
                    f"{sign_of(x, 'double')}; }})")
        if isinstance(e, ast.UnaryOp):
            sign = "-" if isinstance(e.op, ast.USub) else "+"
            return f"({sign}{self._velem(e.operand, prep, ks)})"
        if _abs_call(self, e) is not None:
            self._libm("fabs", 1)
            return f"fabs({self._velem(e.args[0], prep, ks)})"
        unary = unary_call(self, e)
        if unary is not None:   # the scalar code's libm function, element by element
            self._libm(unary[1], 1)
            return f"{unary[1]}({self._velem(unary[0], prep, ks)})"
        if isinstance(e, ast.BinOp) and isinstance(e.op, ast.MatMult):
            return self._matmul_elem(e.left, e.right, prep, ks)
        if squared(e):      # NumPy squares a float array as x * x, exactly
            x = self._new()
            return f"({{ const double {x} = {self._velem(e.left, prep, ks)}; {x} * {x}; }})"
        if isinstance(e, ast.BinOp):
            if type(e.op) not in _OPS:
                raise Unsupported("an operator other than + - * / on slices")
            return (f"({self._velem(e.left, prep, ks)} {_OPS[type(e.op)]} "
                    f"{self._velem(e.right, prep, ks)})")
        if isinstance(e, ast.Call) and e.func.attr in _EXTREMA:
            return extremum(self._velem(e.args[0], prep, ks), self._velem(e.args[1], prep, ks),
                            "double", e.func.attr, self._new(), self._new())
        if isinstance(e, ast.Call) and e.func.attr == "outer":
            u, v = (self._operand(x) for x in e.args)
            return f"({self._velem(u, prep, ks[:1])} * {self._velem(v, prep, ks[1:])})"
        if isinstance(e, ast.Call):
            return self._matmul_elem(e.args[0], e.args[1], prep, ks)
        raise Unsupported(f"{type(e).__name__} of slices")

    def _matmul_elem(self, a, b, prep, ks):
        """Element ks of a @ b: a dot product along their shared dimension (_unit_dot)."""
        va, vb = prep[id(self._operand(a))], prep[id(self._operand(b))]
        ra, rb = len(va[1]), len(vb[1])
        return self._unit_dot(va, ra - 1, vb, 0, lambda x, y, q: (
            self._at(x, ks[:ra - 1] + (q,)), self._at(y, (q,) + ks[ra - 1:ra - 1 + rb - 1])))

    def _unit_dot(self, va, da, vb, db, pair):
        """_dot of two views along their dimensions da and db (pair(x, y, q): the C
        lvalues of the two elements at q of views x and y), in two versions of the same
        sums: where both are contiguous along them (a row of a C array, a vector) the
        DOT_LANES partial sums are vectors of four doubles, loaded four elements at a
        time (LLVM does not make vectors of interleaved scalar sums itself); elsewhere
        the strides as they come."""
        n = va[1][da][0]
        ux, uy = _unit(va, da), _unit(vb, db)
        q, x, y, r = (self._new() for _ in range(4))
        accs = [self._new() for _ in range(DOT_LANES // 4)]
        ea, eb = pair(ux, uy, q)
        step = []
        for v, a in enumerate(accs):
            xa, ya = pair(ux, uy, f"({q} + {4 * v})")
            step.append(f"__builtin_memcpy(&{x}, &{xa}, 32); __builtin_memcpy(&{y}, &{ya}, 32); "
                        f"{a} += {x} * {y};")
        # lane k of the scalar version is element k % 4 of vector k // 4: the same sums
        total = _pairwise([f"{accs[k // 4]}[{k % 4}]" for k in range(DOT_LANES)])
        fast = (f"({{ npc_d4 {' = 0.0, '.join(accs)} = 0.0; i64 {q} = 0; "
                f"for (; {q} + {DOT_LANES} <= {n}; {q} += {DOT_LANES}) {{ npc_d4 {x}, {y}; "
                f"{' '.join(step)} }} "
                f"for (; {q} < {n}; ++{q}) {accs[0]}[0] += {ea} * {eb}; "
                f"double {r} = {total}; {r}; }})")
        slow = self._dot(n, lambda k: "{} * {}".format(*pair(va, vb, k)))
        return f"(({va[1][da][1]} == 8 && {vb[1][db][1]} == 8) ? {fast} : {slow})"

    def _dot(self, n, term):
        """A statement expression: the sum of term(q) for q in [0, n), in DOT_LANES
        interleaved partial sums (q mod DOT_LANES), added pairwise at the end. One sum
        in order is a chain of dependent additions (one per 4 cycles); BLAS, which
        NumPy's @ and np.dot call, adds in partial sums of its own, so neither order
        gives its last bits."""
        q, accs = self._new(), [self._new() for _ in range(DOT_LANES)]
        step = " ".join(f"{a} += {term(f'({q} + {i})')};" for i, a in enumerate(accs))
        return (f"({{ double {' = 0.0, '.join(accs)} = 0.0; i64 {q} = 0; "
                f"for (; {q} + {DOT_LANES} <= {n}; {q} += {DOT_LANES}) {{ {step} }} "
                f"for (; {q} < {n}; ++{q}) {accs[0]} += {term(q)}; {_pairwise(accs)}; }})")

    @staticmethod
    def _at(view, ks):
        p, dims = view
        off = " + ".join(f"{k} * {s}" for k, (_, s) in zip(ks, dims))
        return f"(*(double*)({p} + {off}))"

    # ----------------------------------------------------------------- statements
    def _is_fill(self, s):
        """`x[a:b:c] = v`, `A[i, :] = v` with v a number: a fill of a slice of an array
        of any numeric dtype, `is_prime[p * p::p] = False`."""
        if not (isinstance(s, ast.Assign) and len(s.targets) == 1):
            return False
        tgt = s.targets[0]
        if not (isinstance(tgt, ast.Subscript) and isinstance(tgt.value, ast.Name)):
            return False
        idx = tgt.slice.elts if isinstance(tgt.slice, ast.Tuple) else [tgt.slice]
        return any(isinstance(x, ast.Slice) for x in idx) and \
            self._typ(s.value) not in (VEC, MAT)

    def _fill_type(self, tgt):
        """The dtype of the array a fill writes, its indices and bounds checked."""
        name = tgt.value.id
        if self.types.get(name) is not ARRAY:
            raise Unsupported(f"{name}[...] where {name} is not an array")
        dtype, ndim, _ = self.arrays[name]
        idx = tgt.slice.elts if isinstance(tgt.slice, ast.Tuple) else [tgt.slice]
        if len(idx) != ndim:
            raise Unsupported(f"{name} has {ndim} dimensions and is indexed by {len(idx)}")
        if dtype.kind not in "biuf":
            raise Unsupported(f"a store into {name}, a {dtype} array")
        for x in idx:
            for e in ([x.lower, x.upper, x.step] if isinstance(x, ast.Slice) else [x]):
                if e is not None:
                    self._want_int(e)
        return dtype

    def _fill_store(self, tgt, value, depth):
        """The number once, cast as NumPy's setitem casts it, then into every element of
        the slice."""
        dtype = self._fill_type(tgt)
        saved, self.lines = self.lines, []
        v = self._new()
        self._out(f"const {CT[dtype]} {v} = "
                  f"{self._convert_store(self._expr(value), self._typ(value), dtype)};")
        p, dims = self._view(tgt)
        ks = [self._new() for _ in dims]
        loops = " ".join(f"for (i64 {k} = 0; {k} < {n}; ++{k})" for k, (n, _) in zip(ks, dims))
        off = " + ".join(f"{k} * {st}" for k, (_, st) in zip(ks, dims))
        self._out(f"{loops} *({CT[dtype]}*)({p} + {off}) = {v};")
        body, self.lines = self.lines, saved
        self._block(body, depth)

    def _vector_store(self, tgt, value, op, depth):
        """target[...] = value, or target[...] op= value (value: a slice expression or
        a number), the right side computed before the target changes."""
        saved, self.lines = self.lines, []
        target = self._view(tgt)
        prep = {}
        shape = self._vprep(value, prep)
        tshape = [n for n, _ in target[1]]
        if shape:
            # (a value's new axis, stride 0, is read at every index of the target's)
            self._same(tshape, [n if n != "1" else t for n, t in zip(shape, tshape)]
                       if len(shape) == len(tshape) else shape)
        ks = tuple(self._new() for _ in tshape)
        elem = self._at(target, ks)
        put = (lambda v: f"{elem} = {v};") if op is None else \
            (lambda v: f"{elem} = {elem} {op} {v};")
        val = self._velem(value, prep, ks)
        loops = " ".join(f"for (i64 {k} = 0; {k} < {n}; ++{k})" for k, n in zip(ks, tshape))
        plain = scalar_loops(ks, tshape)
        unit = self._unit_last(target, prep)
        if unit is None:
            direct = f"{loops} {put(val)}"
        else:       # the same loop, its last dimension's strides the constant 8
            cond, utarget, uprep = unit
            uelem = self._at(utarget, ks)
            uval = self._velem(value, uprep, ks)
            uput = f"{uelem} = {uval};" if op is None else f"{uelem} = {uelem} {op} {uval};"
            direct = f"if ({cond}) {{ {loops} {uput} }} else {{ {plain} {put(val)} }}"
        # Only views of the target's own name can overlap it: two names never share
        # memory in a nest (arrays it binds are its own, aliases are refused, and
        # api/native_loop.py declines arguments that share memory), so the test and
        # the temporary's version, a third of a stencil's code, go where they can matter
        name = self.view_names[target[0]]
        crossing = {id(v) for v in prep.get("crossing", [])}
        over = " || ".join(self._overlaps(target, v, id(v) not in crossing)
                           for v in prep.get("views", [])
                           if self.view_names.get(v[0], name) == name)
        if over:    # through a temporary, as NumPy does
            tmp = self._new()
            size = " * ".join(f"(u64){n}" for n in tshape)
            flat = " + ".join(f"{k} * {m}" for k, m in zip(ks, self._strides(tshape)))
            self._out(f"if ({over}) {{")
            self._out(f"  double* {tmp} = (double*)malloc(({size}) * 8 + 8);")
            self._out(f"  if (!{tmp}) {_FAIL};")
            self._out(f"  {plain} {tmp}[{flat}] = {val};")
            self._out(f"  {plain} {put(f'{tmp}[{flat}]')}")
            self._out(f"  free({tmp});")
            self._out("} else {")
            self._out(f"  {direct}")
            self._out("}")
        else:
            self._out(direct)
        body, self.lines = self.lines, saved
        self._block(body, depth)

    @staticmethod
    def _unit_last(target, prep):
        """(condition, target, prep) for the version of an elementwise loop where every
        view's last dimension is contiguous: its strides as the constant 8, which LLVM
        vectorizes (with run-time strides it leaves the loop scalar: a FIR filter's taps
        ran 3.5x slower than NumPy's); None where the loop has no dimension."""
        if not target[1]:
            return None
        def moving(v):      # (a new axis last, stride 0, is a constant already)
            return isinstance(v, tuple) and v[1] and v[1][-1][1] != "0"
        views = [v for k, v in prep.items() if k != "views" and moving(v)]
        cond = " && ".join(f"{v[1][-1][1]} == 8" for v in [target] + views)
        uprep = {k: _unit(v, -1) if k != "views" and moving(v) else v
                 for k, v in prep.items()}
        return cond, _unit(target, -1), uprep

    def _block(self, body, depth):
        """Lines written aside, as one C block (their names stay local to it)."""
        self._out("{", depth)
        for line in body:
            self._out(line, depth + 1)
        self._out("}", depth)

    @staticmethod
    def _strides(shape):
        """Element strides of a C-contiguous temporary of this shape (C lengths), of any
        rank: a slice of three dimensions (`T[:, :, 1:] = T[:, :, :-1] + 1`, or a row of
        a 4-d array) went through a temporary indexed by its first index alone."""
        out, inner = [], "1"
        for n in reversed(shape):
            out.append(inner)
            inner = n if inner == "1" else f"{inner} * {n}"
        return out[::-1]

    def _overlaps(self, target, view, elementwise=True):
        """C test: `view` reads memory `target` covers, other than element for element
        (elementwise: the view is read at the element being written; else any overlap)."""
        (p, td), (q, vd) = target, view
        same = f"{q} == {p}" + "".join(f" && {a[0]} == {b[0]} && {a[1]} == {b[1]}"
                                       for a, b in zip(td, vd)) \
            if len(td) == len(vd) and elementwise else "0"
        return (f"(!({same}) && npc_lo({q}, {self._ext(vd)}) < npc_hi({p}, {self._ext(td)}) "
                f"&& npc_lo({p}, {self._ext(td)}) < npc_hi({q}, {self._ext(vd)}))")

    @staticmethod
    def _ext(dims):
        """(negative span, positive span, empty) of a view's dimensions, in bytes."""
        neg = " + ".join(f"({n} > 0 && {s} < 0 ? ({n} - 1) * {s} : 0)" for n, s in dims)
        pos = " + ".join(f"({n} > 0 && {s} > 0 ? ({n} - 1) * {s} : 0)" for n, s in dims)
        empty = " || ".join(f"{n} == 0" for n, _ in dims)
        return f"{neg}, {pos}, {empty}"

    def _reduction(self, a, b=None, square_root=False):
        """A statement expression: the sum of a vector expression, the dot product of
        two, or a vector's 2-norm (the square root of its dot with itself), in order."""
        saved, self.lines = self.lines, []
        prep = {}
        sa = self._vprep(a, prep)
        if len(sa) == 2 and (b is None or (square_root and b is a)):  # its elements, in C order
            k, acc, n = self._new(), self._new(), self._new()
            self._out(f"const i64 {n} = {sa[0]} * {sa[1]};")
            ks = (f"({k} / {sa[1]})", f"({k} % {sa[1]})")
            if square_root:     # (NumPy's Frobenius norm: a dot product of the elements)
                self._libm("sqrt", 1)
                x = self._new()

                def term(q):
                    at = (f"({q} / {sa[1]})", f"({q} % {sa[1]})")
                    return f"({{ const double {x} = {self._velem(a, prep, at)}; {x} * {x}; }})"
                self._out(f"double {acc} = sqrt({self._dot(n, term)});")
            else:
                self._numpy_sum(self._velem(a, prep, ks), k, acc, n)
            body, self.lines = self.lines, saved
            return "({ " + " ".join(body) + f" {acc}; }})"
        if len(sa) != 1:
            raise Unsupported("a dot product of a matrix")
        if b is not None:
            sb = self._vprep(b, prep)
            self._same(sa, sb)
        k, acc = self._new(), self._new()
        if b is None and not square_root:
            self._numpy_sum(self._velem(a, prep, (k,)), k, acc, sa[0])
            body, self.lines = self.lines, saved
            return "({ " + " ".join(body) + f" {acc}; }})"
        other = b if b is not None else a
        va, vb = prep.get(id(a)), prep.get(id(other))
        if isinstance(va, tuple) and isinstance(vb, tuple):     # two views: `Q[:, j] @ y`
            total = self._unit_dot(va, 0, vb, 0, lambda x, y, q: (self._at(x, (q,)),
                                                                 self._at(y, (q,))))
        else:
            total = self._dot(sa[0], lambda q: f"{self._velem(a, prep, (q,))} * "
                                               f"{self._velem(other, prep, (q,))}")
        self._out(f"double {acc} = {total};")
        if square_root:
            self._libm("sqrt", 1)
            self._out(f"{acc} = sqrt({acc});")
        body, self.lines = self.lines, saved
        return "({ " + " ".join(body) + f" {acc}; }})"

    def _extreme_reduction(self, a, which):
        """np.max/np.min of a slice expression of any rank, as NumPy: a NaN anywhere is
        the result, and an empty one raises (ValueError: the nest stops)."""
        saved, self.lines = self.lines, []
        prep = {}
        dims = self._vprep(a, prep)
        ks = tuple(self._new() for _ in dims)
        acc, x, first = self._new(), self._new(), self._new()
        self._out(f"if ({' || '.join(f'{n} == 0' for n in dims)}) {_FAIL};")
        self._out(f"double {acc} = 0.0; bool {first} = true;")
        for k, n in zip(ks, dims):
            self._out(f"for (i64 {k} = 0; {k} < {n}; ++{k})")
        # quiet comparisons: a NaN raises no invalid flag (which stops the nest, status 2)
        cmp = "__builtin_isgreater" if which == "max" else "__builtin_isless"
        self._out(f"{{ const double {x} = {self._velem(a, prep, ks)}; "
                  f"if ({first} || {cmp}({x}, {acc}) || __builtin_isnan({x})) {{ "
                  f"if (!__builtin_isnan({acc})) {acc} = {x}; {first} = false; }} }}")
        body, self.lines = self.lines, saved
        return "({ " + " ".join(body) + f" {acc}; }})"

    def _numpy_sum(self, term, k, acc, n):
        """acc = np.sum of a vector, in NumPy's pairwise order (codegen/numpy_sum_order.py):
        its bits. (Dot products and norms are BLAS's in NumPy: added in order here.)"""
        self.need.add(("helper", "pairwise", "double"))
        f, p = self._new(), self._new()
        piece = unbuffered_piece()
        self._out(f"auto {f} = [&](i64, i64 {k}) -> double {{ return {term}; }};")
        self._out(f"double {acc} = 0.0;")
        if piece is None:
            self._out(f"{acc} += npc_pairwise_double<false>({f}, 0, {n}, {n});")
        else:
            self._out(f"for (i64 {p} = 0; {p} < {n}; {p} += {piece}) {acc} += npc_pairwise_double"
                      f"<false>({f}, {p}, {n} - {p} < {piece} ? {n} - {p} : {piece}, {n});")

    def _vector_operand(self, e):
        """What a sum or a norm takes: a vector or matrix expression (a matrix's, over its
        elements in C order, as NumPy reduces the C-ordered array an expression makes)."""
        if self._typ(e) not in (VEC, MAT):
            raise Unsupported("a sum or norm of something other than a slice expression")
        return e


HELPERS = """\
typedef double npc_d4 __attribute__((ext_vector_type(4)));   // a dot product's partial sums
extern "C" void* malloc(u64); extern "C" void free(void*); extern "C" void* realloc(void*, u64);
// the lowest and one past the highest byte a view touches (neg/pos: its spans below and
// above p; empty: no element at all, so nothing to overlap)
static inline char* npc_lo(char* p, i64 neg, i64 pos, bool empty) {
  (void)pos; return empty ? (char*)-1 : p + neg; }
static inline char* npc_hi(char* p, i64 neg, i64 pos, bool empty) {
  (void)neg; return empty ? (char*)0 : p + pos + 8; }
// ordered comparisons that never raise the invalid flag (a NaN compares false, as in
// NumPy, which warns of nothing there; the flag would stop the nest): LLVM may lower
// even __builtin_isless to a signaling vector compare, so the order is taken on the
// bits as integers (sign-magnitude made monotone), after the quiet tests == and NaN
static inline i64 npc_key(double x) {
  const i64 b = __builtin_bit_cast(i64, x); return b ^ ((b >> 63) & 0x7fffffffffffffffLL); }
static inline bool npc_lt(double a, double b) {
  return !__builtin_isnan(a) && !__builtin_isnan(b) && !(a == b) && npc_key(a) < npc_key(b); }
static inline bool npc_le(double a, double b) {
  return !__builtin_isnan(a) && !__builtin_isnan(b) && (a == b || npc_key(a) < npc_key(b)); }
static inline bool npc_gt(double a, double b) { return npc_lt(b, a); }
// np.median's elements in order (no NaN among them): insertion sort for a window, heapsort
// past it (no recursion, no allocation)
static void npc_sift_f8(double* a, i64 i, i64 n) {
  for (;;) { i64 c = 2 * i + 1; if (c >= n) return; if (c + 1 < n && a[c] < a[c + 1]) ++c;
    if (!(a[i] < a[c])) return; const double t = a[i]; a[i] = a[c]; a[c] = t; i = c; } }
static void npc_sort_f8(double* a, i64 n) {
  if (n <= 32) { for (i64 i = 1; i < n; ++i) { const double x = a[i]; i64 j = i;
      for (; j > 0 && x < a[j - 1]; --j) a[j] = a[j - 1]; a[j] = x; } return; }
  for (i64 i = n / 2 - 1; i >= 0; --i) npc_sift_f8(a, i, n);
  for (i64 e = n - 1; e > 0; --e) { const double t = a[0]; a[0] = a[e]; a[e] = t;
    npc_sift_f8(a, 0, e); } }
static inline bool npc_ge(double a, double b) { return npc_le(b, a); }
"""
