"""Tests of slices inside a compiled loop nest (codegen/scalar_nest.py), where NumPy
makes a boolean array only to reduce it or select with it at once: a skip test
`if np.isnan(row).any(): continue`, `if (x[:k] < t).all():`, a count
`np.count_nonzero(d > tol)`, a select `np.where(v > 0, v, 0.0)`; and the index of
an extreme, `p = k + np.argmax(np.abs(A[k:, k]))`.

A predicate is a comparison (< <= > >= == !=) of slice expressions (float64, as the
slice code computes them) and numbers, np.isnan / np.isinf / np.isfinite of one, and
~, &, | and np.logical_not of predicates. It is never bound to a name (a mask `m = x >
0` would be a bool array of its own: refused), only taken by:
* .any() / .all() / np.any / np.all: a NumPy bool, the loop left at the first element
  that decides it (an empty one: False / True, as NumPy);
* np.count_nonzero: a Python int (NumPy 1.x) or an np.intp (2.x), as NumPy's;
* np.where(P, a, b), a and b slice expressions or numbers: float64 elementwise (two
  Python ints would make an int64 array: refused).
Comparisons are the quiet ones (a NaN compares false and raises no invalid flag, which
would stop the nest as a NumPy warning does, and NumPy gives none for it).

np.argmax / np.argmin (and the methods) of a slice expression of any rank: the first
index of the extreme in C order, a NaN being the extreme (NumPy's rule), an np.int64;
an empty one stops the nest (NumPy's ValueError)."""
import ast

import numpy as np

from .scalar_nest_types import B1, F8, I8, MAT, PYINT, VEC, Unsupported, is_float, is_np, \
    method_of, numpy_call

_FAIL = "goto npc_fail"
PREDICATE_CALLS = ("isnan", "isinf", "isfinite", "logical_not", "where")
REDUCING_CALLS = ("any", "all", "count_nonzero", "argmax", "argmin")
_TESTS = {"isnan": "__builtin_isnan", "isinf": "__builtin_isinf", "isfinite": "__builtin_isfinite"}
# quiet comparisons of doubles (scalar_nest_vectors.HELPERS)
_QUIET = {ast.Lt: "npc_lt", ast.LtE: "npc_le", ast.Gt: "npc_gt", ast.GtE: "npc_ge"}
_EQ = {ast.Eq: "==", ast.NotEq: "!="}
_RANK = {VEC: 1, MAT: 2}


# what np.count_nonzero of a whole array is: a Python int under NumPy 1.x, an np.intp
# under 2.x
_COUNT = PYINT if type(np.count_nonzero(np.zeros(2))) is int else \
    np.dtype(type(np.count_nonzero(np.zeros(2))))


def reduced(nest, e):
    """(kind, operand) of a reduction of a predicate or an argmax/argmin, else None."""
    if not isinstance(e, ast.Call) or e.keywords:
        return None
    got = method_of(nest, e, REDUCING_CALLS[:2] + REDUCING_CALLS[3:])
    if got is not None:
        return e.func.attr, got
    if numpy_call(nest, e.func, REDUCING_CALLS) and len(e.args) == 1:
        return e.func.attr, e.args[0]
    return None


def is_where(nest, e):
    return isinstance(e, ast.Call) and not e.keywords and len(e.args) == 3 and \
        numpy_call(nest, e.func, ("where",))


class PredicateCode:
    """Mixed into scalar_nest.Nest."""

    # ----------------------------------------------------------------- types
    def _reduced_type(self, kind, operand):
        if kind in ("argmax", "argmin"):
            if self._typ(operand) not in (VEC, MAT):
                raise Unsupported(f"np.{kind} of something other than a slice expression")
            return I8
        self._pred_rank(operand)
        return _COUNT if kind == "count_nonzero" else B1

    def _where_type(self, e):
        rank = self._pred_rank(e.args[0])
        types = [self._typ(a) for a in e.args[1:]]
        ranks = {_RANK[t] for t in types if t in _RANK}
        if ranks - {rank}:
            raise Unsupported("np.where of operands of other dimensions than its test")
        if any(t not in _RANK and not (is_float(t) or t == PYINT) for t in types) or \
                not any(t in _RANK or is_float(t) for t in types) or \
                any(is_np(t) and t != F8 for t in types):
            raise Unsupported("np.where of operands that do not make a float64 array")
        return VEC if rank == 1 else MAT

    def _pred_rank(self, p):
        """The rank of a predicate's boolean array, or Unsupported."""
        if isinstance(p, ast.Compare):
            if len(p.ops) != 1 or type(p.ops[0]) not in {**_QUIET, **_EQ}:
                raise Unsupported("a chained comparison of slices")
            return self._operands_rank([p.left, p.comparators[0]])
        if isinstance(p, ast.UnaryOp) and isinstance(p.op, ast.Invert):
            return self._pred_rank(p.operand)
        if isinstance(p, ast.BinOp) and isinstance(p.op, (ast.BitAnd, ast.BitOr)):
            a, b = self._pred_rank(p.left), self._pred_rank(p.right)
            if a != b:
                raise Unsupported("& or | of tests of other dimensions")
            return a
        if isinstance(p, ast.Call) and not p.keywords and len(p.args) == 1 and \
                numpy_call(self, p.func, ("logical_not",)):
            return self._pred_rank(p.args[0])
        if isinstance(p, ast.Call) and not p.keywords and len(p.args) == 1 and \
                numpy_call(self, p.func, _TESTS):
            return self._operands_rank(p.args)
        raise Unsupported("a test of slices other than comparisons, np.isnan/isinf/isfinite, "
                          "~, & and |")

    def _operands_rank(self, operands):
        types = [self._typ(x) for x in operands]
        ranks = {_RANK[t] for t in types if t in _RANK}
        if len(ranks) != 1:
            raise Unsupported("a test of slices of other dimensions, or of no slice")
        if any(t not in _RANK and not (is_float(t) or t in (PYINT,) or
                                        (is_np(t) and t.kind in "iu")) for t in types):
            raise Unsupported("a slice compared with something other than a number")
        return ranks.pop()

    # ----------------------------------------------------------------- code
    def _pprep(self, p, prep):
        """Declare what a predicate reads (vectors._vprep of its operands): its shape."""
        if isinstance(p, ast.Compare):
            a, b = (self._vprep(x, prep) for x in (p.left, p.comparators[0]))
            if a and b:
                return self._same(a, b)
            return a or b
        if isinstance(p, ast.UnaryOp):
            return self._pprep(p.operand, prep)
        if isinstance(p, ast.BinOp):
            a, b = self._pprep(p.left, prep), self._pprep(p.right, prep)
            return self._same(a, b)
        if p.func.attr == "logical_not":
            return self._pprep(p.args[0], prep)
        return self._vprep(p.args[0], prep)

    def _pelem(self, p, prep, ks):
        """The C bool of a predicate at indices ks."""
        if isinstance(p, ast.Compare):
            a, b = (self._velem(x, prep, ks) for x in (p.left, p.comparators[0]))
            op = type(p.ops[0])
            if op in _EQ:
                return f"(({a}) {_EQ[op]} ({b}))"
            return f"{_QUIET[op]}({a}, {b})"
        if isinstance(p, ast.UnaryOp):
            return f"(!{self._pelem(p.operand, prep, ks)})"
        if isinstance(p, ast.BinOp):
            op = "&" if isinstance(p.op, ast.BitAnd) else "|"
            return f"({self._pelem(p.left, prep, ks)} {op} {self._pelem(p.right, prep, ks)})"
        if p.func.attr == "logical_not":
            return f"(!{self._pelem(p.args[0], prep, ks)})"
        return f"{_TESTS[p.func.attr]}({self._velem(p.args[0], prep, ks)})"

    def _where_prep(self, e, prep):
        shape = self._pprep(e.args[0], prep)
        for x in e.args[1:]:
            got = self._vprep(x, prep)
            if got:
                shape = self._same(shape, got)
        return shape

    def _where_elem(self, e, prep, ks):
        test, a, b = (self._pelem(e.args[0], prep, ks), self._velem(e.args[1], prep, ks),
                      self._velem(e.args[2], prep, ks))
        return f"({test} ? (double)({a}) : (double)({b}))"

    def _reduced_code(self, kind, operand):
        """A statement expression: the reduction's value."""
        saved, self.lines = self.lines, []
        prep = {}
        arg = kind in ("argmax", "argmin")
        dims = (self._vprep if arg else self._pprep)(operand, prep)
        ks = tuple(self._new() for _ in dims)
        acc = self._new()
        if arg:
            q, best, x = self._new(), self._new(), self._new()
            cmp = "npc_gt" if kind == "argmax" else "npc_lt"
            self._out(f"if ({' || '.join(f'{n} == 0' for n in dims)}) {_FAIL};")
            self._out(f"i64 {acc} = 0, {q} = 0; double {best} = 0.0;")
            loops = " ".join(f"for (i64 {k} = 0; {k} < {n}; ++{k})" for k, n in zip(ks, dims))
            # the first NaN is the answer, and once found no later element replaces it
            self._out(f"{loops} {{ const double {x} = {self._velem(operand, prep, ks)}; "
                      f"if ({q} == 0 || (!__builtin_isnan({best}) && "
                      f"(__builtin_isnan({x}) || {cmp}({x}, {best})))) {{ {best} = {x}; "
                      f"{acc} = {q}; }} ++{q}; }}")
        elif kind == "count_nonzero":
            loops = " ".join(f"for (i64 {k} = 0; {k} < {n}; ++{k})" for k, n in zip(ks, dims))
            self._out(f"i64 {acc} = 0;")
            self._out(f"{loops} {acc} += {self._pelem(operand, prep, ks)} ? 1 : 0;")
        else:
            # any: true at the first element that holds; all: false at the first that
            # does not (the loops stop there)
            want = "true" if kind == "any" else "false"
            self._out(f"bool {acc} = {'false' if kind == 'any' else 'true'};")
            loops = " ".join(f"for (i64 {k} = 0; {k} < {n} && {acc} != {want}; ++{k})"
                             for k, n in zip(ks, dims))
            test = self._pelem(operand, prep, ks)
            self._out(f"{loops} if ({'' if kind == 'any' else '!'}{test}) {acc} = {want};")
        body, self.lines = self.lines, saved
        return "({ " + " ".join(body) + f" {acc}; }})"


def sign_of(x, ctype, floats=True):
    """C of np.sign of a number x (a fresh name bound once): 1, -1, 0 for either zero,
    and a NaN itself (quiet comparisons: no invalid flag for it)."""
    if not floats:
        return f"(({ctype})(({x} > 0) - ({x} < 0)))"
    return (f"(npc_gt({x}, 0.0) ? ({ctype})1 : npc_lt({x}, 0.0) ? ({ctype})-1 : "
            f"{x} == ({ctype})0 ? ({ctype})0 : {x})")

