"""Loop nests of scalar code run as one compiled function (codegen/scalar_nest.py).

api/loop_rewrite.py hands each `for ... in range(...)` nest written only in the subset
that file renders (element reads and writes, numbers, math functions, if/break/continue,
`raise`)
to scan(), and rewrites it so that, at run time, run() is asked first:

    try:
        __npc_na_K = (p1, p2, ...)          # a name not bound yet: the Python loop
    except NameError:
        __npc_na_K = None
    __npc_nr_K = __npc_loop__.native(K, __npc_na_K)
    if __npc_nr_K is None:
        for ...:                            # the user's loop, untouched
    else:
        if 'x' in __npc_nr_K: x = __npc_nr_K['x']     # what the nest bound

run() types the arguments, renders and compiles the nest once per argument types (the
JIT's cache keeps it across processes), snapshots the arrays the nest writes, runs it,
and hands back the names it bound. Where the nest stops (an error or warning Python or
NumPy would raise, codegen/scalar_nest.py says which), the arrays are put back and the
Python loop runs, so that error, or warning, is NumPy's own. Types it does not take, a
name that is not a module it knows, a read-only array: the Python loop runs, and the
report says why once per loop."""
import ast
import builtins
import copy
import functools
import math
import os

import numpy as np

from ..backends.device_array import DeviceArray
from ..backends.jit_code import JitCode
from ..codegen import scalar_nest as sn
from ..records import SESSION
from ..trace import steps as _steps
from ..trace.lazy_array import LazyArray
from ..trace.tracer import concretize, current

_BUILTINS = ("abs", "min", "max", "len", "float", "int")
_NAMES = _BUILTINS + ("range", "enumerate", "zip", "divmod")   # builtins a nest may call
_MODULE_FUNCS = frozenset(list(sn.UNARY_MATH) + list(sn._BINARY) + list(sn.CONSTRUCTORS) +
                          ["abs", "absolute", "minimum", "maximum", "dot", "sum", "outer",
                           "max", "amax", "min", "amin", "sign", "diag", "mean", "median"] +
                          list(sn.CONSTRUCTED) +
                          list(sn.PREDICATE_CALLS) +
                          list(sn.REDUCING_CALLS))
_TWO_ARGS = frozenset(list(sn._BINARY) + ["minimum", "maximum", "dot", "outer"])
# methods a nest calls on arrays and slice expressions (codegen/scalar_nest_vectors.py):
# name -> how many positional arguments
_METHODS = {"sum": 0, "max": 0, "min": 0, "copy": 0, "astype": 1, "any": 0, "all": 0, "mean": 0,
            "argmax": 0, "argmin": 0}
# a nest that stopped this often for one argument type runs as Python from then on
MAX_STOPS = 2


class NativeSite:
    """One rewritten loop nest."""

    def __init__(self, index, lineno, text, nest, stored, globals_):
        self.index = index
        self.lineno = lineno
        self.text = text
        self.nest = nest
        self.params = nest.params
        self.stored = stored      # arrays the nest writes (snapshots for a rollback)
        self.globals = globals_   # where its module names and builtins are looked up
        self.compiled = {}        # argument types -> (rendered Nest, address) or a reason
        self.stops = {}           # argument types -> times the nest stopped
        # a plan's replays (_again): argument kinds (_kinds) -> (sig, rendered, address,
        # types) of a run that ran compiled, so that the next skips typing them again
        self.replays = {}
        self.reported = set()
        # the arrays it reads and writes by rows of the loop variable only (`X[i]`,
        # `X[i - 1]`): their work per iteration is a row, whatever their size
        self.row_sweep = row_sweep(nest.loop)
        # the names read only as operands of a matrix product (CG's A in `A @ p`)
        self.products_only = products_only(nest.loop)
        self.instead = None       # what runs where the nest declines, when not the loop as written


def products_only(loop):
    """The names a loop reads only as an operand of @ or np.dot (`A @ p`, `np.dot(A,
    p)`): a matrix-vector product's matrix, read once per product, whose work the nest's
    loop does as BLAS's would (a 300x300 CG: the nest 0.52 ms a solve, the body
    compiled once 0.90, NumPy 0.62), unlike elementwise work over as many elements."""
    operands, other = set(), set()
    for node in ast.walk(loop):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
            found = [node.left, node.right]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr == "dot" and len(node.args) == 2:
            found = node.args
        else:
            continue
        operands.update(id(x) for x in found if isinstance(x, ast.Name))
    for node in ast.walk(loop):
        if isinstance(node, ast.Name) and id(node) not in operands:
            other.add(node.id)
    return frozenset(n.id for n in ast.walk(loop)
                     if isinstance(n, ast.Name) and id(n) in operands) - other


def row_sweep(loop):
    """The names a `for v in range(...)` reads and writes by rows only, where every
    subscript of its body is `X[v]`, `X[v + 1]`, `X[v - 1, :]` (the loop variable, maybe
    moved by a constant, first, whole rows after it) and it has no inner loop; else an
    empty set. A Thomas solve over a batch of systems: 200 rows of 500 elements, one row
    per iteration. (A name also used whole, `p = p * x + c[k]`, is not among them.)"""
    if not (isinstance(loop, ast.For) and isinstance(loop.target, ast.Name)):
        return frozenset()
    var = loop.target.id

    def moved(e):
        if isinstance(e, ast.Name):
            return e.id == var
        return isinstance(e, ast.BinOp) and isinstance(e.op, (ast.Add, ast.Sub)) and \
            isinstance(e.left, ast.Name) and e.left.id == var and \
            isinstance(e.right, ast.Constant) and type(e.right.value) is int

    def whole(e):
        return isinstance(e, ast.Slice) and e.lower is None and e.upper is None and \
            e.step is None
    nodes = [n for st in loop.body for n in ast.walk(st)]
    subs = [n for n in nodes if isinstance(n, ast.Subscript)]
    if not subs or any(isinstance(n, (ast.For, ast.While)) for n in nodes):
        return frozenset()
    for n in subs:
        idx = n.slice.elts if isinstance(n.slice, ast.Tuple) else [n.slice]
        if not (isinstance(n.value, ast.Name) and moved(idx[0]) and
                all(whole(x) for x in idx[1:])):
            return frozenset()
    by_rows = {id(n.value) for n in subs}     # the names read through a subscript
    rows = {n.value.id for n in subs}
    return frozenset(r for r in rows if all(id(n) in by_rows for n in nodes
                                            if isinstance(n, ast.Name) and n.id == r))


# ----------------------------------------------------------------------------- scan

def scan(loop, outside):
    """A Nest for this loop, or None where it is not all in the subset. `outside`: the
    names read outside the loop (None: every name it binds is handed back, a cell)."""
    sc = _Scan()
    try:
        sc.stmt(loop, set())
    except _No:
        return None
    copies = sc.copies
    # `x += dt * v` of an array is an update in place (codegen/scalar_nest.py renders it
    # `x[:] += ...`), not a rebinding: it is stored, and snapshot for a rollback
    in_place = (sc.augmented - sc.plain) & sc.arrays
    # (a parameter both rebound and updated by op=, `v = w / b` then `v /= norm(v)`, may
    # be updated while it is still the caller's array: it is snapshot too)
    stored_arrays = [n for n in sc.arrays_stored if n not in copies] + \
        [n for n in sorted(sc.augmented) if n not in sc.arrays_stored and
         (n not in sc.plain or n in sc.params)]
    for name in sc.sinks:   # a list read or bound otherwise than appended to: not taken
        uses = sum(isinstance(n, ast.Name) and n.id == name for n in ast.walk(loop))
        if uses != sum(sn.lists.appended(st) is not None and sn.lists.appended(st)[0] == name
                       for st in ast.walk(loop)):
            return None
    # (names the nest binds itself and indexes, a view `x = R[k:, k]` or a new array `v =
    # x.copy()`, are its own: codegen/scalar_nest.py types them)
    given = (sc.arrays & set(sc.params)) | set(sc.modules) | set(_NAMES)
    if (sc.bound - set(copies) - in_place) & given:
        return None     # an array, module or builtin rebound in the nest
    params = [n for n in sc.params if n not in sc.modules and n not in _NAMES]
    outputs = [n for n in sc.bound_order if (outside is None or n in outside)]
    if any(n in params or n in outputs or src in copies for n, src in copies.items()):
        return None     # a copy read before it is made, or after the nest, or of a copy
    # the nest renders its own copy: the loop as written stays the fallback, whose inner
    # loops api/loop_rewrite.py then rewrites in place
    nest = sn.Nest(_divmods_split(copy.deepcopy(loop)), params,
                   [n for n in outputs if n not in copies],
                   dict.fromkeys(sc.modules, None))
    nest.copies = copies
    nest.slices = sc.slices
    nest.lists = frozenset(sc.sinks)
    return nest, stored_arrays


class _No(Exception):
    pass


class _Scan:
    def __init__(self):
        self.params = []          # read before bound, in order
        self.bound = set()
        self.bound_order = []
        self.arrays = set()       # names indexed
        self.arrays_stored = []
        self.modules = []         # names used as modules (np.sqrt, math.exp)
        self.copies = {}          # name -> the array it is a copy of (`un = u.copy()`)
        self.augmented = set()    # names only ever updated by `x op= ...` (in place if arrays)
        self.plain = set()        # names bound otherwise (=, for targets, copies)
        self.slices = False       # whether it takes slices (a:b) anywhere
        self.views = {}           # name -> the array it is bound to a slice of (`x = R[k:, k]`)
        self.sinks = set()        # lists the loop appends numbers to, and does nothing else with
        # name -> the array it may be a view of (`row = A[q]`: a row where A has more
        # dimensions): a change of it in place is a store into that array
        self.maybe_views = {}

    def read(self, name, assigned):
        if name not in assigned and name not in self.params:
            self.params.append(name)

    def bind(self, name, assigned):
        assigned.add(name)
        if name not in self.bound:
            self.bound.add(name)
            self.bound_order.append(name)

    def stmts(self, body, assigned):
        for s in body:
            self.stmt(s, assigned)

    def stmt(self, s, assigned):
        if isinstance(s, ast.For) and not s.orelse and sn.elements.parts(s) is not None:
            bound, start = sn.elements.parts(s)    # for x in a, enumerate(a), zip(a, b)
            if start is not None:
                self.expr(start, assigned)
            if isinstance(s.iter, ast.Call):
                self.read(s.iter.func.id, assigned)
            inner = set(assigned)
            for name, array in bound:
                if array is not None:
                    self.arrays.add(array)
                    self.read(array, assigned)
                    self.maybe_views[name] = array      # (a row of a 2-d array: a view)
            for name, _ in bound:
                self.bind(name, inner)
            self.stmts(s.body, inner)
        elif isinstance(s, ast.For):
            it = s.iter
            if s.orelse or not isinstance(s.target, ast.Name) or not isinstance(it, ast.Call) \
                    or not isinstance(it.func, ast.Name) or it.func.id != "range" \
                    or it.keywords or not 1 <= len(it.args) <= 3:
                raise _No
            for a in it.args:
                self.expr(a, assigned)
            self.read("range", assigned)
            inner = set(assigned)
            self.bind(s.target.id, inner)
            self.stmts(s.body, inner)      # nothing is surely bound after zero iterations
        elif isinstance(s, ast.If):
            self.expr(s.test, assigned)
            a, b = set(assigned), set(assigned)
            self.stmts(s.body, a)
            self.stmts(s.orelse, b)
            assigned |= a & b
        elif isinstance(s, ast.While):
            if s.orelse:
                raise _No
            self.expr(s.test, assigned)
            self.stmts(s.body, set(assigned))
        elif isinstance(s, ast.Assign) and len(s.targets) > 1:   # a = b = value
            if any(not isinstance(t, (ast.Name, ast.Subscript)) for t in s.targets):
                raise _No
            self.expr(s.value, assigned)
            for t in s.targets:
                self.target(t, assigned)
        elif isinstance(s, ast.Assign):
            tgt = s.targets[0]
            if isinstance(tgt, ast.Tuple) and _divmod_of(s.value) is not None and \
                    len(tgt.elts) == 2:     # p, q = divmod(idx, n)
                self.read("divmod", assigned)
                for v in _divmod_of(s.value):
                    self.expr(v, assigned)
                for e in tgt.elts:
                    self.target(e, assigned)
            elif isinstance(tgt, ast.Tuple):
                if not isinstance(s.value, ast.Tuple) or len(s.value.elts) != len(tgt.elts):
                    raise _No
                for v in s.value.elts:
                    self.expr(v, assigned)
                for e in tgt.elts:
                    self.target(e, assigned)
            elif isinstance(s.value, (ast.Tuple, ast.List)) and isinstance(tgt, ast.Subscript):
                for v in s.value.elts:          # a row of numbers: out[t] = x, y, z
                    self.expr(v, assigned)
                self.target(tgt, assigned)
            elif isinstance(tgt, ast.Name) and _slice_of(s.value) is not None and \
                    _slice_of(s.value) not in self.bound:
                # a view, `x = R[k:, k]`: its writes are the array's (stored through it)
                base = _slice_of(s.value)
                if self.views.setdefault(tgt.id, base) != base or tgt.id in self.params:
                    raise _No
                self.expr(s.value, assigned)
                self.target(tgt, assigned)
            elif _copy_of(s.value) is not None and isinstance(tgt, ast.Name) and \
                    _copy_of(s.value) not in self.bound:
                src = _copy_of(s.value)
                if self.copies.setdefault(tgt.id, src) != src:
                    raise _No
                self.arrays.add(src)
                self.read(src, assigned)
                self.arrays.add(tgt.id)
                self.bind(tgt.id, assigned)
            else:
                self.expr(s.value, assigned)
                self.target(tgt, assigned)
                if isinstance(tgt, ast.Name) and isinstance(s.value, ast.Subscript) and \
                        isinstance(s.value.value, ast.Name):
                    self.maybe_views[tgt.id] = s.value.value.id
        elif isinstance(s, ast.AugAssign):
            if type(s.op) not in sn._ARITH:
                raise _No
            if isinstance(s.target, ast.Name):
                self.read(s.target.id, assigned)
                self.augmented.add(s.target.id)
                for base in (self.views.get(s.target.id), self.maybe_views.get(s.target.id)):
                    if base is not None and base not in self.arrays_stored:
                        self.arrays_stored.append(base)     # `x += ...` of a view: its array
            self.expr(s.value, assigned)
            self.target(s.target, assigned, augmented=True)
        elif isinstance(s, ast.Raise):
            # the nest stops there (codegen/scalar_nest.py) and the Python loop raises
            # the user's own exception: what it is made of is never computed here
            pass
        elif sn.lists.appended(s) is not None:
            # `history.append(value)` of a list given to the loop: its numbers collected
            # by the nest (codegen/scalar_nest_lists.py)
            name, value = sn.lists.appended(s)
            if name in self.bound:
                raise _No
            self.read(name, assigned)
            self.sinks.add(name)
            self.expr(value, assigned)
        elif not isinstance(s, (ast.Pass, ast.Break, ast.Continue)):
            raise _No

    def target(self, t, assigned, augmented=False):
        if isinstance(t, ast.Name):
            if t.id in self.copies:
                raise _No       # a copy is only ever made by .copy()
            if not augmented:
                self.plain.add(t.id)
            self.bind(t.id, assigned)
        elif isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name):
            self.element(t, assigned)
            # (a store through a view is one into the array it views)
            for name in (t.value.id, self.views.get(t.value.id),
                         self.maybe_views.get(t.value.id)):
                if name is not None and name not in self.arrays_stored:
                    self.arrays_stored.append(name)
        else:
            raise _No

    def element(self, e, assigned):
        name = e.value.id
        self.arrays.add(name)
        self.read(name, assigned)
        idx = e.slice.elts if isinstance(e.slice, ast.Tuple) else [e.slice]
        for x in idx:
            if isinstance(x, ast.Slice):     # a:b:c (codegen/scalar_nest_vectors.py)
                self.slices = True
                for b in (x.lower, x.upper, x.step):
                    if b is not None:
                        self.expr(b, assigned)
            elif isinstance(x, ast.Constant) and x.value is None:
                self.slices = True          # a new axis: A[k + 1:, k, None]
            elif isinstance(x, ast.List):   # rows swapped: A[[k, p]] = A[[p, k]]
                for v in x.elts:
                    self.expr(v, assigned)
            else:
                self.expr(x, assigned)

    def expr(self, e, assigned):
        if isinstance(e, ast.Constant):
            if type(e.value) not in (int, float, bool, str, bytes):
                raise _No
        elif isinstance(e, ast.Name):
            self.read(e.id, assigned)
        elif isinstance(e, ast.Attribute) and e.attr in ("size", "ndim") and \
                isinstance(e.value, ast.Name):       # A.size, A.ndim
            self.arrays.add(e.value.id)
            self.read(e.value.id, assigned)
        elif isinstance(e, ast.Attribute) and e.attr == "T":     # V[:, :j].T
            self.expr(e.value, assigned)
        elif isinstance(e, ast.Attribute) and e.attr in sn.CONSTANTS and \
                isinstance(e.value, ast.Name):       # math.pi, np.inf
            if e.value.id not in self.modules:
                self.modules.append(e.value.id)
            self.read(e.value.id, assigned)
        elif isinstance(e, ast.BinOp):
            if type(e.op) not in sn._ARITH and not isinstance(e.op, ast.MatMult):
                raise _No
            self.expr(e.left, assigned)
            self.expr(e.right, assigned)
        elif isinstance(e, ast.UnaryOp):
            if not isinstance(e.op, (ast.USub, ast.UAdd, ast.Not, ast.Invert)):
                raise _No
            self.expr(e.operand, assigned)
        elif isinstance(e, ast.Compare):
            if any(type(op) not in sn._CMP for op in e.ops):
                raise _No
            for x in [e.left] + e.comparators:
                self.expr(x, assigned)
        elif isinstance(e, ast.BoolOp):
            for x in e.values:
                self.expr(x, assigned)
        elif isinstance(e, ast.IfExp):
            for x in (e.test, e.body, e.orelse):
                self.expr(x, assigned)
        elif isinstance(e, ast.Subscript):
            v = e.value
            if isinstance(v, ast.Name):
                self.element(e, assigned)
            elif isinstance(v, ast.Attribute) and v.attr == "shape" and \
                    isinstance(v.value, ast.Name) and isinstance(e.slice, ast.Constant) and \
                    type(e.slice.value) is int:
                self.arrays.add(v.value.id)
                self.read(v.value.id, assigned)
            else:
                raise _No
        elif isinstance(e, ast.Call):
            f = e.func
            if e.keywords:
                raise _No
            if isinstance(f, ast.Name) and f.id in _BUILTINS:
                n = len(e.args)
                if (f.id in ("min", "max") and n < 2) or (f.id not in ("min", "max") and n != 1):
                    raise _No
                if f.id == "len":
                    if not isinstance(e.args[0], ast.Name):
                        raise _No
                    self.arrays.add(e.args[0].id)
                self.read(f.id, assigned)
            elif isinstance(f, ast.Attribute) and f.attr in _METHODS and \
                    len(e.args) == _METHODS[f.attr] and not (isinstance(f.value, ast.Name) and
                                                             f.value.id in self.modules):
                # u[a:b].sum(), np.abs(u - old).max(), x.copy(), X[i].astype(np.float64)
                self.expr(f.value, assigned)
                if f.attr == "astype":      # its dtype: `float`, or np.float64 and the like
                    d = e.args[0]
                    if isinstance(d, ast.Attribute) and isinstance(d.value, ast.Name):
                        if d.value.id not in self.modules:
                            self.modules.append(d.value.id)
                        self.read(d.value.id, assigned)
                    elif not (isinstance(d, ast.Name) and d.id == "float"):
                        raise _No
                    return
            elif isinstance(f, ast.Attribute) and f.attr == "norm" and len(e.args) == 1 and \
                    isinstance(f.value, ast.Attribute) and f.value.attr == "linalg" and \
                    isinstance(f.value.value, ast.Name):      # np.linalg.norm(u)
                if f.value.value.id not in self.modules:
                    self.modules.append(f.value.value.id)
                self.read(f.value.value.id, assigned)
            elif isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and \
                    f.attr in _MODULE_FUNCS:
                want = 2 if f.attr in _TWO_ARGS or f.attr == "full" else \
                    3 if f.attr == "where" else 1
                if len(e.args) != want:
                    raise _No
                if f.value.id not in self.modules:
                    self.modules.append(f.value.id)
                self.read(f.value.id, assigned)
                if f.attr in sn.CONSTRUCTED and isinstance(e.args[0], ast.Tuple):
                    for a in e.args[0].elts:    # np.zeros((n, m)): its shape
                        self.expr(a, assigned)
                    for a in e.args[1:]:
                        self.expr(a, assigned)
                    return
            else:
                raise _No
            for a in e.args:
                self.expr(a, assigned)
        else:
            raise _No


def _divmod_of(value):
    """(a, b) of `divmod(a, b)`, else None."""
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and \
            value.func.id == "divmod" and len(value.args) == 2 and not value.keywords:
        return value.args
    return None


def _divmods_split(loop):
    """`p, q = divmod(a, b)` as `p, q = a // b, a % b`, what divmod computes for numbers
    (Python's and NumPy's alike; the nest renders // and % as they do)."""
    for node in ast.walk(loop):
        if isinstance(node, ast.Assign) and _divmod_of(node.value) is not None:
            a, b = _divmod_of(node.value)
            node.value = ast.copy_location(ast.Tuple(
                [ast.BinOp(a, ast.FloorDiv(), b), ast.BinOp(copy.deepcopy(a), ast.Mod(),
                                                            copy.deepcopy(b))],
                ast.Load()), node.value)
    return ast.fix_missing_locations(loop)


def _slice_of(value):
    """`R` for a subscript of the name R taking a slice (`R[k:, k]`), else None."""
    if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name):
        idx = value.slice.elts if isinstance(value.slice, ast.Tuple) else [value.slice]
        if any(isinstance(x, ast.Slice) for x in idx):
            return value.value.id
    return None


def _copy_of(value):
    """`src` for `src.copy()`, else None."""
    if isinstance(value, ast.Call) and not value.args and not value.keywords and \
            isinstance(value.func, ast.Attribute) and value.func.attr == "copy" and \
            isinstance(value.func.value, ast.Name):
        return value.func.value.id
    return None


# ----------------------------------------------------------------------------- run

def run(site, args, owner_name, small=None, short=0, kinds=None):
    """{name: value} the nest bound, having run compiled; None: run the Python loop.
    Of a nest that binds names to new arrays (whole-array code, which the trace also
    takes): small(), are its arrays small enough that the nest beats a body compiled
    once, where that is what runs instead; short, below this many iterations its loop
    is traced as written, fused with the code around it (and the call replays)."""
    if args is None:
        return None
    from ..backends import cpu
    if not _compiled_here():
        return None     # the reference path is NumPy's, op by op: the loop runs as Python
    nest = site.nest
    modules = {}
    for alias in nest.modules:
        m = site.globals.get(alias)
        if m is np:
            modules[alias] = "numpy"
        elif m is math:
            modules[alias] = "math"
        else:
            return _decline(site, f"{alias} is not numpy or math here", owner_name)
    for name in _NAMES:
        if name in site.globals and site.globals[name] is not getattr(builtins, name):
            return _decline(site, f"{name} is not the builtin here", owner_name)
    values = dict(zip(nest.params, args))
    types, arrays, sig = {}, {}, []
    for name in nest.params:    # typed before anything is computed: a nest that runs
        v = values[name]        # as Python must not cut the trace's graph
        if name in nest.lists:
            if type(v) is not list:
                return _decline(site, f"{name}, which it appends to, is a {type(v).__name__}",
                                owner_name)
            types[name] = sn.SINK
            sig.append("list")
        elif type(v) is LazyArray and v._scalar:    # a NumPy scalar still being traced
            if v.dtype not in sn.ARRAY_DTYPES:
                return _decline(site, f"{name} is a NumPy {v.dtype} scalar", owner_name)
            types[name] = v.dtype
            sig.append(v.dtype.str)
        elif type(v) is np.ndarray or type(v) is LazyArray or type(v) is DeviceArray:
            if not sn.array_dtype(v.dtype) or v.ndim == 0:
                return _decline(site, f"{name} is a {v.ndim}-d {v.dtype} array (a compiled "
                                      f"loop nest takes bool, integer, float32, float64 and "
                                      f"fixed-width string arrays)", owner_name)
            types[name] = sn.ARRAY
            arrays[name] = (v.dtype, v.ndim, True)
            sig.append((v.dtype.str, v.ndim))
        else:
            t = sn.type_of_value(v)
            if t is None:
                try:
                    t = sn.strings.constant_type(v)
                except sn.Unsupported as e:
                    return _decline(site, f"{name}: {e}", owner_name)
            if t is None:
                return _decline(site, f"{name} is a {type(v).__name__}", owner_name)
            types[name] = t
            sig.append(t if not sn.is_np(t) else t.str)
    sig = (tuple(sig), tuple(sorted(modules.items())))
    got = site.compiled.get(sig)
    if got is None:
        got = site.compiled[sig] = _render(site, types, arrays, modules)
    if isinstance(got, str):
        return _decline(site, got, owner_name)
    if isinstance(got, sn.Nest):    # rendered, not compiled yet
        if got.arrays_bound and _trip_count(nest.loop, values) < short:
            return None     # (before compiling it: PCA's 4 components, 0.8 s of LLVM)
        if got.arrays_bound and site.instead == "a body compiled once" and \
                small is not None and not small():
            # (compiled only once it would run: 0.2 s of LLVM for a gradient descent
            # whose arrays are always large, on its first call)
            return _decline(site, "its arrays are large", owner_name)
        got = site.compiled[sig] = _compile(site, got, cpu)
        if isinstance(got, str):
            return _decline(site, got, owner_name)
    if site.stops.get(sig, 0) >= MAX_STOPS:
        return None
    rendered, address = got
    if rendered.arrays_bound:
        if _trip_count(nest.loop, values) < short:
            return None
        if site.instead == "a body compiled once" and small is not None and not small():
            # `x = x + alpha * p` of large arrays: the body's fused kernels on every
            # core (the nest is one thread, its products not BLAS's)
            return _decline(site, "its arrays are large", owner_name)
    if kinds is not None and not any(type(v) is LazyArray or type(v) is DeviceArray
                                     for v in args):
        site.replays[kinds] = (sig, rendered, address, types)
    return _run_rendered(site, sig, rendered, address, values, types, args, owner_name)


def _run_rendered(site, sig, rendered, address, values, types, args, owner_name):
    """run()'s part once the nest is typed and compiled: its checks, its run, and what
    it bound ({name: value}), or None: run the Python loop."""
    from ..backends import cpu
    for name, given in rendered.entry.items():   # a number that becomes a double inside,
        v, inner = values[name], rendered.locals[name]     # or a narrower NumPy integer
        if sn.is_int(given) and not sn.is_int(inner) and abs(int(v)) > sn._EXACT:
            return None
        if given in (sn.PYINT, sn.PYBOOL) and sn.is_np(inner) and sn.is_int(inner) and \
                not sn.int_range(inner)[0] <= int(v) <= sn.int_range(inner)[1]:
            return None     # NumPy 2's OverflowError at its first use: Python's loop
    tracer = current()
    if any(type(v) is LazyArray for v in args):
        if tracer is not None:  # (none past the break budget: every lazy array is flushed)
            tracer.flush()
        values = {k: concretize(v) if type(v) is LazyArray else v for k, v in values.items()}
    moved = any(type(v) is DeviceArray for v in values.values())
    staged = _on_host(values, types, site.stored)
    if staged is None:
        return _decline(site, "two of its arrays on the GPU share memory", owner_name)
    for name in site.nest.params:
        v = values[name]
        if types[name] is sn.ARRAY and (type(v) is not np.ndarray or not v.flags.aligned):
            return _decline(site, f"{name} is not an aligned host array", owner_name)
    shared = _shared(values, types, site.stored)
    if shared:
        return _decline(site, f"{shared[0]} and {shared[1]} share memory, and it writes "
                              f"{shared[0]}", owner_name)
    # (a name updated by `op=` is stored where it is an array; a number it stays)
    targets = [values[n] for n in site.stored if type(values.get(n)) is np.ndarray]
    if any(not a.flags.writeable for a in targets):
        return None     # Python raises NumPy's error
    saved = [a.copy() for a in targets]
    try:
        out = np.zeros(sn.array_slots(rendered), np.int64)
        bufs, P = rendered.pack(values)
        cpu._cpu.run_kernel(address, [out] + bufs, P, 1, 1)
        made = sn.take_arrays(rendered, out) if out[0] != 1 else {}
        got = {**rendered.unpack(out), **made} if out[0] == 0 else None
        if rendered.sinks:
            if got is None:
                if out[0] != 1:
                    sn.lists.free(rendered, out)
            else:
                sn.lists.take(rendered, out, {n: values[n] for n in rendered.sinks})
    except Exception as e:  # npcompile's own failure: the user's loop runs instead
        out, got = None, None
        _fallback(site, "failed", e)
    if got is None:     # Python or NumPy would raise or warn here: they do it themselves
        for a, s in zip(targets, saved):
            np.copyto(a, s)
        site.stops[sig] = site.stops.get(sig, 0) + (1 if out is not None else MAX_STOPS)
        return None
    for dev, host in staged:    # what it wrote into arrays on the GPU goes back there
        dev.set(host)
    if tracer is not None:
        tracer.mark_irreversible(f"its loop at line {site.lineno} ran compiled natively")
        if rendered.sinks:      # the lists it appended to: no step of a plan makes them
            tracer.read_value(f"its loop nest at line {site.lineno} appends to a list")
        else:
            got = _as_step(tracer, site, args, values, got, targets, owner_name)
    where = " on the host (its arrays on the GPU copied there and back)" if moved else ""
    _report(site, sig, f"line {site.lineno}: the loop nest runs as one compiled function"
                       f"{where} ({rendered.symbol})", owner_name)
    return got


def _as_step(tracer, site, args, values, got, targets, owner_name):
    """The nest's run as a step of the call (trace/steps.py): a replay of the call runs
    the nest again on the values it reads then (api/step_plan.py), checks the numbers it
    binds, and takes the arrays it binds as new values. The arrays it binds enter the
    trace as arrays NumPy made, so that Python's reads of them are steps too. Where the
    step cannot be made again, the call does not replay, as before."""
    if not tracer.recording():
        tracer.read_value(f"its loop nest at line {site.lineno} runs compiled natively")
        return got
    names = tuple(sorted(got))
    result = tuple(got[n] for n in names)
    cargs = tuple(values[n] for n in site.nest.params)
    step = _steps.eager_step(functools.partial(_again, site, owner_name, names), tuple(args),
                             None, cargs, {}, result, writes=targets)
    if type(step) is str:
        tracer.read_value(f"its loop nest at line {site.lineno} runs compiled natively "
                          f"({step})")
        return got
    tracer.steps.append(step)
    return dict(zip(names, tracer.rewrap(result)))


class _Stopped(Exception):
    """A nest replayed as a step declined or stopped: the call is traced instead."""


def _again(site, owner_name, names, *args):
    kinds = _kinds(args)
    hit = site.replays.get(kinds) if kinds is not None and current() is None else None
    if hit is not None and site.stops.get(hit[0], 0) < MAX_STOPS and _compiled_here():
        # typed and compiled for arguments of these kinds already (a plan replays the
        # same nest at every call: typing it again was most of its 27 us a step)
        sig, rendered, address, types = hit
        got = _run_rendered(site, sig, rendered, address, dict(zip(site.nest.params, args)),
                            types, args, owner_name)
    else:
        got = run(site, args, owner_name, kinds=kinds)
    if got is None or tuple(sorted(got)) != names:
        raise _Stopped()
    return tuple(got[n] for n in names)


def _compiled_here():
    """Do nests run compiled: the CPU backend is built, and not the reference path?"""
    from ..backends import cpu
    return bool(cpu.AVAILABLE) and os.environ.get("NPC_BACKEND") != "reference"


def _kinds(args):
    """What typing a nest's arguments depends on, cheaply, or None (a string, whose type
    depends on its value): arrays' dtypes and dimensions, scalars' types (a Python int
    also by whether it fits in 64 bits)."""
    out = []
    for v in args:
        t = type(v)
        if t is np.ndarray:
            out.append((v.dtype, v.ndim))
        elif t is int:
            out.append((int, -2 ** 63 <= v < 2 ** 63))
        elif t is str or t is bytes or t is np.str_ or t is np.bytes_:
            return None
        else:
            out.append(t)
    return tuple(out)


def _trip_count(loop, values):
    """The number of iterations of `for _ in range(...)` where its bounds are numbers,
    names of ints, len() of a name and arithmetic of those; else a large number."""
    def ev(e):
        if isinstance(e, ast.Constant) and type(e.value) is int:
            return e.value
        if isinstance(e, ast.Name) and type(values.get(e.id)) is int:
            return values[e.id]
        if isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and e.func.id == "len" \
                and len(e.args) == 1 and isinstance(e.args[0], ast.Name) and \
                hasattr(values.get(e.args[0].id), "__len__"):
            return len(values[e.args[0].id])
        if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
            return -ev(e.operand)
        if isinstance(e, ast.BinOp) and type(e.op) in _INT_OPS:
            return _INT_OPS[type(e.op)](ev(e.left), ev(e.right))
        raise ValueError
    it = getattr(loop, "iter", None)     # (a while loop's count is not known: long)
    if not (isinstance(loop, ast.For) and isinstance(it, ast.Call) and
            isinstance(it.func, ast.Name) and it.func.id == "range"):
        return 1 << 62
    try:
        return len(range(*(ev(a) for a in it.args)))
    except (ValueError, TypeError, ZeroDivisionError):
        return 1 << 62


_INT_OPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
            ast.Mult: lambda a, b: a * b, ast.FloorDiv: lambda a, b: a // b}


def _shared(values, types, stored):
    """(written, other) array arguments whose memory may overlap, or None. The nest
    tests overlap only between views of one name (codegen/scalar_nest_vectors.py): two
    names are two arrays there, which arguments that share memory are not."""
    arrays = [n for n in values if types.get(n) is sn.ARRAY]
    for w in stored:
        if types.get(w) is not sn.ARRAY:
            continue
        for n in arrays:
            if n != w and np.may_share_memory(values[w], values[n]):
                return w, n
    return None


def _on_host(values, types, stored):
    """Arrays on the GPU (device="cuda") brought to the host, where the nest runs: a
    loop over elements traced for the GPU was a graph of one node per element operation
    (the Thomas algorithm of a Crank-Nicolson step: minutes of compiling, for a
    sequential recurrence no GPU runs well). Replaces them in `values`, and returns
    [(device array, host copy)] for those the nest writes, to be put back after it ran;
    None where two arrays on the GPU share memory and one is written (two host copies
    would not see each other's writes)."""
    on_device = [n for n, v in values.items() if type(v) is DeviceArray]
    written = set(stored)
    for i, a in enumerate(on_device):
        for b in on_device[i + 1:]:
            if (a in written or b in written) and \
                    values[a].buffer is values[b].buffer:
                return None
    staged = []
    for name in on_device:
        dev = values[name]
        host = dev.get()
        values[name] = host if types[name] is sn.ARRAY else host[()]
        if name in written:
            if not dev.flags.writeable:
                host.flags.writeable = False     # Python's loop raises NumPy's error
            staged.append((dev, host))
    return staged


def _render(site, types, arrays, modules):
    """The nest rendered for these types (its source in .source), or why not."""
    nest = copy.copy(site.nest)
    nest.modules = modules
    try:
        nest.source, nest.symbol = nest.render(types, arrays)
    except sn.Unsupported as e:
        return str(e)
    except Exception as e:   # a renderer bug: the loop runs as Python, and it is reported
        return _fallback(site, "could not be compiled", e)
    return nest


def _compile(site, nest, cpu):
    source, sym = nest.source, nest.symbol
    try:
        r = cpu._cpu.compile(source, [sym])
    except Exception as e:   # a renderer bug: the loop runs as Python, and it is reported
        return _fallback(site, "could not be compiled", e)
    nest.code = JitCode(cpu._cpu, r)   # its machine code stays loaded while the site holds it
    SESSION.add("kernel_sources", {"name": sym, "source": source, "graph_id": -1,
                                   "target": "cpu", "ptx": None, "ops": []})
    return nest, r["addresses"][0]


def _fallback(site, what, e):
    """Record npcompile's own failure at a nest: the user's loop runs as Python."""
    why = f"{type(e).__name__}: {str(e)[:300]}"
    SESSION.add("fallbacks", {"graph_id": -1, "function": f"loop at line {site.lineno}",
                              "reason": f"the loop nest at line {site.lineno} {what}: {why}"})
    return f"its compiled function {what} ({type(e).__name__})"


def _decline(site, why, owner_name):
    # where a compiled body takes the loop instead, "runs as Python" would mislead (the
    # body's own line follows)
    summary = f"line {site.lineno}: the loop nest runs as Python: {why}" if site.instead \
        is None else f"line {site.lineno}: not a scalar loop nest ({why}): it runs as " \
        f"{site.instead}"
    _report(site, why, summary, owner_name)
    return None


def _report(site, key, summary, owner_name):
    if key in site.reported:
        return
    site.reported.add(key)
    report_loop({"graph_id": -1, "function": owner_name, "lineno": site.lineno,
                 "text": site.text, "iterations": None, "kernel": "", "summary": summary})


def report_loop(rec):
    """What happened to a loop: in the report, and in explain() of the running trace."""
    SESSION.add("loops", rec)
    tracer = current()
    if tracer is not None:
        tracer.loop_notes.append(rec["summary"])
