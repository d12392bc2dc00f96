"""Loops compile once: a jitted function's `for` loops whose body is straight-line code
are rewritten so that the body is a function of the values it reads, called once per
iteration (api/loop_runner.py compiles it once and replays it for every iteration).
Traced as written, a loop of N iterations was N copies of its body in one graph:
tracing, fusing and rendering all grew with N (a 400-step stencil took 0.3 s to compile,
a 4x longer run 3x as long).

What is rewritten, and why only that:
* `for NAME in ITER:` with no else, whose body holds only assignments, augmented
  assignments, expression statements and pass: every name the body binds is bound on
  every iteration, so the body's function returns all of them, and the names it reads
  before binding them are exactly its parameters. No break/continue/return/yield/await,
  no global/nonlocal/del, no nested def/class/lambda, no walrus.
* The loop variable is not read in the body (`for _ in range(steps)`): a body that
  reads it would be a different graph at every iteration.
* The function has no closure (its code is recompiled here with the same globals).

The rewritten loop asks the runner first and keeps the original loop as the fallback:

    __npc_it = ITER
    try:
        __npc_args = (p1, p2, ...)        # a name not bound yet: NameError
    except NameError:
        __npc_args = None
    __npc_r = __npc_loop__(ID, __npc_it, __npc_args)
    if __npc_r is None:
        for NAME in __npc_it:             # the original loop, untouched
            BODY
    else:
        NAME = __npc_r[0]; (b1, b2, ...) = __npc_r[1]

so any case the runner declines (not a range, too few iterations, no trace running,
an unbound name) runs exactly the user's code.

`while COND:` loops with such a body (the iterative solver's `while err > tol and k <
maxiter:`) are rewritten the same way (WhileSite): the runner tests COND in Python on the
loop's values, which a compiled body has made concrete (no graph break per test), and
runs the body compiled once; counters (`k += 1`, k read by nothing else in the body) run
in Python beside it, so the body does not see a new Python int at every iteration.
A `for` loop whose body holds one `if TEST: break` (or `return EXPR`), with only renames
(`x = x_new`) after it, is rewritten likewise (ExitSite): what precedes the test is the
body compiled once, TEST runs in Python after it, and EXPR is returned where it held.

Line numbers are the user's: errors and graph breaks inside the body point at the lines
the user wrote."""
import ast
import copy
import inspect
import os
import textwrap
import types

import numpy as np

from . import loop_helpers, loop_iterables, loop_selects, loop_sinks, native_loop
from .loop_split import Branch, Segment, SplitSite

# what a loop over an array is written with (api/loop_iterables.py): not where the user
# has a name of their own for one
_ITERATION_BUILTINS = ("enumerate", "zip", "len", "range", "min")
# a function that looks at its own namespace sees every name a loop body binds
_INTROSPECTION = frozenset(("locals", "vars", "eval", "exec"))
_VALUES = (int, float, complex, bool)
_SIMPLE = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.Pass)
# what a branch of a split loop (api/loop_split.py), plain Python in a function, may not
# hold: leaving the loop or the function, or binding names in other scopes
_BRANCH_FORBIDDEN = (ast.Break, ast.Continue, ast.Return, ast.Yield, ast.YieldFrom,
                     ast.Await, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
                     ast.Lambda, ast.NamedExpr, ast.Global, ast.Nonlocal, ast.Delete)
_FORBIDDEN = (ast.Lambda, ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Await,
              ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _written_names(stmts):
    """The names these statements bind, and the arrays they write into (`x[i] = v`,
    `x += v`): what a branch of a split loop may change under a compiled segment."""
    out = set()
    for n in (x for s in stmts for x in ast.walk(s)):
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            out.add(n.id)
        elif isinstance(n, ast.Subscript) and isinstance(n.ctx, (ast.Store, ast.Del)):
            base = n.value
            while isinstance(base, (ast.Subscript, ast.Attribute)):
                base = base.value
            if isinstance(base, ast.Name):
                out.add(base.id)
    return frozenset(out)


def native_loop_default():
    return os.environ.get("NPC_NATIVE_LOOPS", "1") != "0"


class LoopSite:
    """One rewritten loop: its body function and what it reads and binds."""

    def __init__(self, index, lineno, text, var, params, binds):
        self.index = index
        self.lineno = lineno
        self.text = text
        self.var = var
        # (carried position, type) of Python numbers that stayed numbers through the
        # iteration traced as written: a later entry hands them in as loop values at once
        self.numbers_stay = set()
        self.params = params    # names the body reads before binding them
        self.binds = binds      # names the body binds and someone reads after it
        self.carry = [b for b in binds if b in params]   # what the next iteration reads
        self.step = None        # the body returning self.carry (every iteration but the last)
        self.body = None        # the body returning self.binds (the last iteration)
        self.sinks = None       # statements whose Python part runs beside the body (Sinks)
        # why the body cannot take its loop values (its variable read as a number,
        # carried Python numbers: trace/loop_values.py) or cannot be replayed at all:
        # the loop then runs as written, on later calls too (where the call as a whole
        # may replay); and the last such reason, of the step or of the last body
        self.value_refused = None
        self.refusal = None
        self.span = None        # the inner loops' iterations its body writes out
        self.written_out = 0

    def attach(self, funcs):
        self.step = funcs[f"__npc_step_{self.index}"]
        self.body = funcs[f"__npc_body_{self.index}"]
        self.span = funcs.get(f"__npc_wspan_{self.index}")
        # the body as traced as written: its inner loops rewritten (_Rewriter._loop)
        self.wstep = funcs.get(f"__npc_wstep_{self.index}", self.step)
        self.wbody = funcs.get(f"__npc_wbody_{self.index}", self.body)
        _attach_sinks(self, funcs)


class IndexedSite(LoopSite):
    """A LoopSite whose body reads its loop variable only as whole indices of arrays it
    does not rebind (`y[t] = a * x[t] + b * y[t - 1]`, `match = s[i] == b`): each such
    subscript becomes a view made in Python per iteration (`y[t, ...]`, same layout at
    every t) and handed to the body, which reads and writes it as `v[()]`. The body then
    sees no new Python int per iteration: one graph, replayed for every t, where reading
    t made a graph per iteration.

    A body that reads t as a number too (`np.cos(w * t * dt)`, `out[mask] = i`) is
    handed t as a 0-d array, its last argument (value_at), which the body's trace takes
    as a NumPy scalar, an input of the graph rather than a constant; the trace refuses
    it where a NumPy scalar would not do what the Python int does (trace/loop_values.py)
    and the loop is then traced as written."""

    def __init__(self, index, lineno, text, var, params, binds, body_params, view_names,
                 view_params):
        super().__init__(index, lineno, text, var, params, binds)
        self.call_names = body_params + view_names   # the body's parameters
        self.body_at = [params.index(p) for p in body_params]
        self.view_at = [params.index(p) for p in view_params]
        self.views = self.ostep = self.obody = None
        self.taps = False       # a statement or two over moving windows (_window)
        # every view's index is the loop variable plus a constant (`u[i - 1, ...]`,
        # `x[s:s + w]`): its data pointer moves by one stride per iteration, so the C++
        # loop's views can be made at once (loop_runner._views_at_once)
        self.affine = False
        self.value_at = len(self.call_names) - 1 if view_names and view_names[-1] == var \
            else None

    def attach(self, funcs):
        super().attach(funcs)
        self.views = funcs[f"__npc_views_{self.index}"]
        # the body as written, reading the loop variable: iterations traced as written
        self.ostep = funcs[f"__npc_ostep_{self.index}"]
        self.obody = funcs[f"__npc_obody_{self.index}"]

    def call_args(self, value, state):
        """The body's arguments at loop value `value` (raises as NumPy's indexing does)."""
        return [state[j] for j in self.body_at] + \
            self.made_views(value, [state[j] for j in self.view_at])

    def made_views(self, value, fixed):
        """The views at loop value `value`, the loop value among them as a 0-d array."""
        got = list(self.views(value, *fixed))
        if self.value_at is not None:
            got[-1] = np.asarray(got[-1])
        return got


class UntracedSite:
    """A `for` loop whose slice bounds come from array elements (_data_bounds: `wi =
    w[i]; best[wi:] = ...`, a CSR row's `data[indptr[i]:indptr[i + 1]]`) that no other
    rewrite takes: each iteration is a graph of its own shape, and which shapes depends
    on the data, so a graph of it serves no other call. Traced as written it unrolled
    into the trace (a 0-1 knapsack of 400 items: 7200 ops, 2.2 s to compile for 1 ms
    of NumPy work). The runner runs it as plain NumPy, untraced (LoopRunner.untraced)."""

    def __init__(self, index, lineno, text, elements=None):
        self.index, self.lineno, self.text = index, lineno, text
        # taken as element code (_element_walk), not for its bounds: {name: indices}
        self.elements = elements
        self.sinks = None


class ExitSite:
    """One rewritten `for NAME in ITER:` whose straight-line body holds one `if TEST:
    break` (or `if TEST: return EXPR`), followed by nothing or plain renames (`x =
    x_new`): a solver's convergence check. The statements before the test are a body
    compiled once, TEST runs in Python on their values, the renames move them on."""

    def __init__(self, index, lineno, text, var, params, made, renames, test_reads, binds):
        self.index = index
        self.lineno = lineno
        self.text = text
        self.var = var
        self.params = params          # names the body and TEST read from before the loop
        self.made = made              # names the body hands back
        self.renames = renames        # (target, source) after the test
        self.test_reads = test_reads  # the names TEST reads
        self.binds = binds            # names bound in the loop that are read after it
        self.carry = [m for m in made if m in params] + [t for t, _ in renames if t in params]
        # per parameter position, the position among `made` of its value at the next
        # iteration (a rename's source, or itself); None where one is another parameter
        # (runs in C++ feed only the body's outputs)
        nxt = {}
        for j, p in enumerate(params):
            source = dict(renames).get(p, p)
            if source in made:
                nxt[j] = made.index(source)
            elif source != p:
                nxt = None
                break
        self.exit_next = nxt
        self.step = self.body = self.test = None
        # the body that also computes TEST (its last value), or None: TEST is then
        # Python's after each run (see _tests_arrays)
        self.tested = None
        self.test_outside = None    # why TEST went back to Python, once it did
        self.sinks = None

    def attach(self, funcs):
        self.body = funcs[f"__npc_xbody_{self.index}"]
        self.test = funcs[f"__npc_xtest_{self.index}"]
        self.tested = funcs.get(f"__npc_xtbody_{self.index}")
        _attach_sinks(self, funcs)


class WhileSite:
    """One rewritten `while COND: BODY`: the body as a function of the values it and the
    condition read, the condition as one too, and the loop's counters (`k += 1` where
    nothing else in the body reads k) apart, so that the compiled body does not see a
    new Python int at every iteration."""

    def __init__(self, index, lineno, text, params, binds, counters, body_reads, cond_reads):
        self.index = index
        self.cond_reads = frozenset(cond_reads)   # the names COND reads
        self.lineno = lineno
        self.text = text
        self.written_out = 0     # inner loop iterations its body writes out (span)
        # its carried Python numbers were NumPy's after one iteration (api/loop_runner.py)
        self.numbers_settle = False
        self.params = params      # names the condition, the body or the counters read
        self.binds = binds        # names the body binds that someone reads after it
        self.counters = counters  # names only the counter statements bind
        self.carry = [b for b in binds if b in params]
        # what the body takes: a counter, a new Python int per iteration, would make a
        # new replay key (and graph) per iteration; what only the condition reads (a
        # list, `while len(hist) < n`) would make the body's arguments unkeyable
        self.body_params = [p for p in params if p not in counters and p in body_reads]
        # positions in `params` (the runner's state), worked out once for every iteration
        self.body_at = [params.index(p) for p in self.body_params]
        self.counter_at = [params.index(c) for c in counters]
        self.bind_at = [(k, params.index(b)) for k, b in enumerate(binds) if b in params]
        # per body argument position, the position among `binds` of its next value
        self.while_next = {self.body_params.index(b): k for k, b in enumerate(binds)
                           if b in self.body_params}
        self.body = self.cond = self.count = None
        self.span = None          # the inner loops' iterations written out (_while)
        self.exit = None          # TEST of a body ending in `if TEST: ...; break`
        # its arguments after the binds: the state's values of the other names
        self.exit_at = [i for i, p in enumerate(params) if p not in binds]
        self.step = None          # one body for every iteration (LoopSite has two)
        self.sinks = None

    def attach(self, funcs):
        self.body = funcs[f"__npc_wbody_{self.index}"]
        self.cond = funcs[f"__npc_wcond_{self.index}"]
        self.count = funcs[f"__npc_wcount_{self.index}"]
        self.span = funcs.get(f"__npc_wspan_{self.index}")
        self.exit = funcs.get(f"__npc_wexit_{self.index}")
        _attach_sinks(self, funcs)


def _attach_sinks(site, funcs):
    if site.sinks is not None:
        site.sinks.fns = [funcs[f"__npc_sink_{site.index}_{k}"]
                          for k in range(site.sinks.count)]


# sites whose body functions are made by the rewrite (a NativeSite renders its own)
_BODY_SITES = (LoopSite, WhileSite, ExitSite, SplitSite)


def rewrite(fn, runner_factory):
    """(new function, [LoopSite]) or (None, reason) when fn is left as it is.
    runner_factory(sites) -> the callable the rewritten code calls per loop."""
    if not isinstance(fn, types.FunctionType):
        return None, "not a Python function"
    code = fn.__code__
    if code.co_freevars:
        return None, "a closure (its free variables cannot be rebound)"
    try:
        lines, first = inspect.getsourcelines(fn)
    except (OSError, TypeError):
        return None, "no source"
    try:
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except SyntaxError:
        return None, "source does not parse on its own"
    if not tree.body or not isinstance(tree.body[0], ast.FunctionDef) or \
            tree.body[0].name != code.co_name:
        return None, "not a plain def"
    fdef = tree.body[0]
    if any(isinstance(n, (ast.Global, ast.Nonlocal)) for n in ast.walk(fdef)):
        return None, "global or nonlocal statements"
    ast.increment_lineno(tree, first - 1)
    # the def runs again here: decorators, defaults and annotations are the original's
    # (set below), never evaluated a second time
    fdef.decorator_list = []
    fdef.returns = None
    a = fdef.args
    a.defaults = []
    a.kw_defaults = [None] * len(a.kwonlyargs)
    for arg in a.posonlyargs + a.args + a.kwonlyargs + [x for x in (a.vararg, a.kwarg) if x]:
        arg.annotation = None
    # a variable a nested function captures (co_cellvars) is passed to a body like any
    # other: `box` of `def f(v): return v * box[0]` is the same list there
    locals_ = set(code.co_varnames) | set(code.co_cellvars)
    source_lines = "".join(lines).splitlines()
    if any(isinstance(n, ast.Name) and n.id in _INTROSPECTION for n in ast.walk(fdef)):
        return None, "it calls locals(), vars(), eval() or exec()"
    rw = _Rewriter(locals_, source_lines, first, fdef, fn.__globals__, set(code.co_cellvars))
    rw.visit_body_of(fdef)
    sites, bodies = rw.sites, rw.body_defs
    helpers = loop_helpers.helper_names(fn, locals_)
    if not sites and not helpers:
        return None, "no loop to compile once"
    loop_helpers.route_calls(bodies + [fdef], helpers)
    # def __npc_make__(__npc_loop__, __npc_helper__): <body defs>; <fdef>;
    # return (fn, bodies...)
    make = ast.FunctionDef(
        name="__npc_make__",
        args=ast.arguments(posonlyargs=[], args=[ast.arg(arg="__npc_loop__"),
                                                 ast.arg(arg=loop_helpers.HELPER)],
                           vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
                           defaults=[]),
        body=bodies + [fdef, ast.Return(ast.Tuple(
            [ast.Name(fdef.name, ast.Load())] + [ast.Name(b.name, ast.Load()) for b in bodies],
            ast.Load()))],
        decorator_list=[], returns=None, type_comment=None)
    module = ast.Module(body=[make], type_ignores=[])
    ast.fix_missing_locations(module)
    try:
        compiled = compile(module, code.co_filename, "exec")
    except (SyntaxError, ValueError) as e:
        return None, f"rewritten source does not compile: {e}"
    ns = {}
    exec(compiled, fn.__globals__, ns)
    made = ns["__npc_make__"](runner_factory(sites),
                              loop_helpers.Helpers(helpers, rewrite, runner_factory))
    new = made[0]
    funcs = dict(zip([b.name for b in bodies], made[1:]))
    for site in sites:
        if isinstance(site, _BODY_SITES):
            site.attach(funcs)
    new.__defaults__ = fn.__defaults__
    new.__kwdefaults__ = fn.__kwdefaults__
    new.__dict__.update(fn.__dict__)
    return new, sites


def _element_walk(loop):
    """Is this loop (one no other rewrite took) scalar code over array elements that
    breaks the graph at every iteration: no slice anywhere, an element read, and an
    int()/float()/bool()/.item() of a value, or a while test on a name the body binds
    from elements? A DP table's backtrack (`steps = [D[i-1, j-1], ...]; k =
    int(np.argmin(steps))` in `while i > 1 or j > 1`): traced, each element read was a
    graph node and each int() a flush, 110 us an iteration where NumPy takes 7. It runs
    as plain NumPy, untraced (LoopRunner.untraced)."""
    nodes = list(ast.walk(loop))
    if any(isinstance(n, (ast.Slice, ast.FunctionDef, ast.Lambda, ast.Yield, ast.YieldFrom,
                          ast.Return)) for n in nodes):
        return False
    if not any(isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Load) for n in nodes):
        return False
    # an array it indexes is read by its elements only, never whole (`0.5 * x`, x.max():
    # array work, which the trace takes)
    bases = {id(n.value) for n in nodes if isinstance(n, ast.Subscript)}
    indexed = {n.value.id for n in nodes if isinstance(n, ast.Subscript) and
               isinstance(n.value, ast.Name)}
    if any(isinstance(n, ast.Name) and n.id in indexed and id(n) not in bases for n in nodes):
        return False
    converts = any(isinstance(n, ast.Call) and (
        (isinstance(n.func, ast.Name) and n.func.id in ("int", "float", "bool")) or
        (isinstance(n.func, ast.Attribute) and n.func.attr == "item")) for n in nodes)
    if converts:
        return True
    if isinstance(loop, ast.While):
        from_elements = {t for st in ast.walk(loop) if isinstance(st, ast.Assign) and
                         any(isinstance(n, ast.Subscript) for n in ast.walk(st.value))
                         for tgt in st.targets for t in _bound_names(tgt)}
        return bool(set(_names_read(loop.test)) & from_elements)
    return False


def _indexed_names(loop):
    """{name: the fewest indices it is subscripted with} for the names a loop subscripts
    that it does not bind itself (the arrays it walks)."""
    bound = {t for st in ast.walk(loop) if isinstance(st, (ast.Assign, ast.AugAssign, ast.For))
             for tgt in (st.targets if isinstance(st, ast.Assign) else [st.target])
             for t in _bound_names(tgt)}
    out = {}
    for n in ast.walk(loop):
        if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and \
                n.value.id not in bound:
            k = len(n.slice.elts) if isinstance(n.slice, ast.Tuple) else 1
            out[n.value.id] = min(k, out.get(n.value.id, k))
    return out


def _data_bounds(body):
    """Does a slice bound or an index in the body read a name the body binds from an
    element of an array (`wi = w[i]; best[wi:] = ...`)? Each iteration's bound is then
    a different number: no one compiled body serves them (a graph per value), and a
    scalar loop nest (api/native_loop.py), or the loop as written, does better."""
    from_elements = set()
    for s in body:
        if isinstance(s, ast.Assign) and any(isinstance(n, ast.Subscript)
                                             for n in ast.walk(s.value)):
            # `lo = indptr[i]`, and `lo, hi = indptr[i], indptr[i + 1]` alike (the names
            # bound: not those of a subscript target `u[i:n:2] = ...`)
            from_elements |= {n for t in s.targets for n in _bound_names(t)}
    if not from_elements:
        return False
    for s in body:
        for n in ast.walk(s):
            if isinstance(n, ast.Subscript):
                items = n.slice.elts if isinstance(n.slice, ast.Tuple) else [n.slice]
                for x in items:
                    if isinstance(x, ast.Slice) and any(
                            b is not None and set(_names_read(b)) & from_elements
                            for b in (x.lower, x.upper, x.step)):
                        return True
    return False


_SCOPES = (ast.Lambda, ast.GeneratorExp, ast.ListComp, ast.SetComp, ast.DictComp,
           ast.FunctionDef, ast.AsyncFunctionDef)


def _captured_outside(fdef, loop, cells):
    """The captured variables (`cells`) that a nested scope outside `loop` reads. A loop
    rebinding one of them runs as written: its body function would bind its own, and
    that scope would not see it. One that only scopes inside the loop read (Conway's
    `sum(np.roll(board, ...) for dy in ...)` in the body) moves into the body function
    with them: a board rebound per generation was traced as written, 49 generations one
    graph of 2700 ops."""
    if not cells or fdef is None:
        return cells
    inside = {id(n) for n in ast.walk(loop)}
    read = set()
    for node in ast.walk(fdef):
        if isinstance(node, _SCOPES) and node is not fdef and id(node) not in inside:
            read.update(n.id for n in ast.walk(node)
                        if isinstance(n, ast.Name) and n.id in cells)
    return read


def _bound_names(target):
    """The names an assignment target binds: a name, or those in a tuple or list of them."""
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for e in target.elts for n in _bound_names(e)]
    if isinstance(target, ast.Starred):
        return _bound_names(target.value)
    return []


def _binds_any(node, names):
    return bool(names) and any(
        isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load) and n.id in names
        for n in ast.walk(node))


def rewrite_cell(tree, source, namespace, runner_factory, filename):
    """A cell's module tree with its loops rewritten in place (the same rewrite, at module
    level): the runner to bind as `__npc_loop__` while it runs, or None (nothing to do).
    The variables are the names the cell binds and the namespace's arrays and numbers;
    every name a body binds is handed back (the namespace keeps it for later cells)."""
    if any(isinstance(n, ast.Name) and n.id in _INTROSPECTION for n in ast.walk(tree)) or \
            any(isinstance(n, (ast.Global, ast.Nonlocal)) for n in ast.walk(tree)):
        return None
    stored = {n.id for n in ast.walk(tree)
              if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    values = {k for k, v in namespace.items() if isinstance(v, _VALUES) or
              type(v).__name__ in ("ndarray", "LazyArray", "DeviceArray")}
    rw = _Rewriter(stored | values, source.splitlines(), 1, None, namespace)
    rw.visit_body_of(tree)
    if not rw.sites:
        return None
    module = ast.Module(body=rw.body_defs, type_ignores=[])
    ast.fix_missing_locations(module)
    ast.fix_missing_locations(tree)
    made = {}
    exec(compile(module, filename, "exec"), namespace, made)  # globals: the namespace
    for site in rw.sites:
        if isinstance(site, _BODY_SITES):
            site.attach(made)
    return runner_factory(rw.sites)


class _Rewriter:
    def __init__(self, locals_, source_lines, first, fdef, globals_, cells=()):
        self.fdef = fdef        # the function (None: a cell, whose every name persists)
        self.globals = globals_  # where a native nest looks up np, math and builtins
        self.locals = locals_
        self.cells = cells      # variables nested functions capture
        self.source_lines = source_lines
        self.first = first
        self.sites = []       # LoopSite per rewritten loop
        self.body_defs = []   # the body's FunctionDef per rewritten loop

    def visit_body_of(self, node):
        """Rewrite qualifying loops in this statement list and the lists nested in it
        (if/while/with/try and loops that do not qualify themselves), not in nested defs."""
        for field in ("body", "orelse", "finalbody"):
            stmts = getattr(node, field, None)
            if isinstance(stmts, list):
                setattr(node, field, self._statements(stmts))
        for h in getattr(node, "handlers", []) or []:
            h.body = self._statements(h.body)

    def _statements(self, stmts):
        out = []
        for s in stmts:
            if isinstance(s, (ast.For, ast.While)) and \
                    _binds_any(s, _captured_outside(self.fdef, s, self.cells)):
                # a loop rebinding a captured variable (`k = t * dt` read by a nested
                # `def f(v): return v * k`): a body function would bind its own k, and
                # the nested function would not see it. It runs as written.
                self.visit_body_of(s)
                out.append(s)
                continue
            if getattr(s, "npc_iterated", False):
                # the loop as written beside its indexed form (api/loop_iterables.py):
                # it runs where that one does not apply, as the user wrote it (or as a
                # native nest, which says why not where it cannot)
                nat = self._scan_native(s)
                got = self._native(s, nat) if nat is not None else None
                if got is not None:
                    out.extend(got)
                    continue
                self.visit_body_of(s)
                out.append(s)
                continue
            if isinstance(s, ast.For) and not any(
                    b in self.globals or b in self.locals for b in _ITERATION_BUILTINS):
                # a loop over an array, by its elements (api/loop_iterables.py)
                alt = loop_iterables.as_indexed(s, len(self.body_defs), self.locals)
                if alt is not None:
                    n_sites = len(self.sites)
                    rewritten = self._statements(alt)
                    if len(self.sites) > n_sites:
                        out.extend(rewritten)
                        continue
            if isinstance(s, ast.For):
                # A nest of element code runs compiled as a whole; one of slice statements
                # that does not read its index is better as a body compiled once (its
                # fused kernels run on every core), so that is tried first for it.
                nat = self._scan_native(s)
                # (one reading its index as a number stays a nest: its index is then a
                # C++ int, where a body would take it as an input per iteration)
                tries = (self._loop, self._native) if nat is not None and nat[0].slices \
                    and not _reads_as_number(s) else (self._native, self._loop)
                # (a split loop tests its ifs in Python on concrete values; made selects,
                # an if that keeps an array, `best_x = x`, would break the graph at every
                # iteration: selects only where the loop cannot be split)
                tries += (self._exit_loop, self._split, self._selecting)
                got = None
                flat = _with_static_loops_unrolled(s, self.globals)
                for attempt in tries:
                    got = attempt(s, nat) if attempt == self._native else attempt(flat)
                    if got is not None:
                        break
                if got is not None and attempt == self._native and tries[0] == self._native:
                    # where the native nest declines at run time (an array of two
                    # dimensions indexed by one), a body compiled once beats the loop
                    # as written
                    nest = self.sites[-1]
                    instead = self._loop(flat)
                    how = "a body compiled once"
                    if instead is None:
                        # a convergence loop, `if err < tol: converged = True; break`
                        instead = self._exit_loop(flat)
                        how = "a body compiled once, its exit test in Python"
                    if instead is not None:
                        self._inner_loops_of_fallback(instead)
                        got[-1].body = instead
                        nest.instead = how
                    else:
                        # a body with `if`s on the loop's numbers (`if i >= steps - keep:
                        # out[j] = x`, a logistic map's attractor): its straight-line
                        # runs compiled once each (_split), not the whole loop written
                        # out into one graph (200 steps, 1855 ops, 0.6 s cold)
                        instead = self._split(flat)
                        how = "its straight-line parts compiled once each"
                        if instead is None:
                            instead = self._selecting(flat)
                            how = "a body compiled once, its ifs made selects"
                        if instead is not None:
                            got[-1].body = instead
                            nest.instead = how
                if got is not None and attempt == self._loop:
                    self._inner_loops_of_fallback(got)
                    if nat is not None:
                        got = self._by_size(s, nat, got)
                if got is not None and attempt == self._native and got[-1].body == [s] and \
                        _data_bounds(_flattened(s.body)):
                    # where the nest declines at run time (a knapsack's bool slices), slices
                    # bounded by elements (`value[wk:]`) run as plain NumPy, untraced, as
                    # where the nest is no candidate at all
                    nest = self.sites[-1]
                    got[-1].body = self._untraced(s)
                    nest.instead = "plain NumPy, untraced"
                elif got is not None and attempt == self._native and got[-1].body == [s]:
                    # the nest may decline at run time (it writes slices of an array it
                    # also reads as a number): the loop as written runs then, and its
                    # inner loops are compiled bodies like any loop's (a time loop's
                    # pressure solve replayed, not unrolled into the trace)
                    self.visit_body_of(s)
                if got is not None:
                    out.extend(got)
                    continue
            if isinstance(s, ast.For) and _data_bounds(_flattened(s.body)):
                out.extend(self._untraced(s))
                continue
            if isinstance(s, ast.While) and any(isinstance(st, ast.For) for st in s.body):
                # a convergence loop around element or row sweeps (SOR until the change
                # is small): one compiled function, like a for nest (a body compiled once
                # writes its sweeps out, up to WRITE_OUT rows). One of whole-array
                # statements (CG's A @ p) stays a body compiled once: its matmuls are
                # BLAS's, on every core
                got = self._native(s, self._scan_native(s))
                if got is not None:
                    nest = self.sites[-1]
                    # where the nest declines at run time (a dtype it does not take), a
                    # body compiled once beats the loop as written; failing that, the
                    # loop as written runs, its inner loops rewritten as any
                    instead = self._while(_with_static_loops_unrolled(s, self.globals))
                    if instead is not None:
                        got[-1].body = instead
                        nest.instead = "a body compiled once"
                    else:
                        self.visit_body_of(s)
                    out.extend(got)
                    continue
            if isinstance(s, ast.While):
                got = self._while(_with_static_loops_unrolled(s, self.globals)) or \
                    self._selecting(s)
                nat = self._scan_native(s) if got is not None else None
                if nat is not None:
                    # a small solver's iteration (CG, power iteration on a 50x50 matrix):
                    # the nest where its arrays are small (its loop costs nanoseconds per
                    # iteration, the body's replay microseconds), the body where they are
                    # large (BLAS on every core); asked at run time, as for a `for` loop
                    got = self._by_size(s, nat, got)
                if got is None:
                    # one no body compiled once takes (a break inside an `if`: Jacobi's
                    # eigenvalue rotations until the off-diagonal is small) may be a nest
                    got = self._native(s, self._scan_native(s))
                    if got is not None:
                        self.visit_body_of(s)
                if got is not None:
                    out.extend(got)
                    continue
            if isinstance(s, (ast.For, ast.While)) and self.fdef is not None and \
                    not s.orelse and _element_walk(s):
                out.extend(self._untraced(s, elements=_indexed_names(s)))
                continue
            if isinstance(s, (ast.For, ast.While, ast.If, ast.With, ast.Try)):
                self.visit_body_of(s)
            out.append(s)
        return out

    def _scan_native(self, loop):
        """native_loop.scan's verdict on a loop (None where nests are turned off)."""
        if not native_loop_default():
            return None
        return native_loop.scan(loop, _loaded_outside(self.fdef, loop) if self.fdef is not
                                None else None)

    def _selecting(self, loop):
        """A loop no other rewrite took whose body's `if`s can be selects
        (api/loop_selects.py): its body made straight-line is a body compiled once. Where
        the runner declines, the loop as the user wrote it runs."""
        if not isinstance(loop, (ast.For, ast.While)) or self.fdef is None or loop.orelse:
            return None
        var = loop.target.id if isinstance(loop, ast.For) and \
            isinstance(loop.target, ast.Name) else None
        body = loop_selects.converted(loop.body, self.globals, self.locals, var)
        if body is None:
            return None
        conv = copy.copy(loop)
        conv.body = body
        conv.npc_written = getattr(loop, "npc_written", loop)
        conv.npc_original = loop
        n_sites = len(self.sites)
        got = self._while(conv) if isinstance(loop, ast.While) else self._loop(conv)
        if got is not None and len(self.sites) > n_sites:
            lines = [str(s.lineno) for s in loop.body if isinstance(s, ast.If)]
            self.sites[-1].selects = (f"the if at line {lines[0]}" if len(lines) == 1 else
                                      f"the ifs at lines {', '.join(lines)}")
        return got

    def _by_size(self, loop, scanned, body_glue):
        """A loop of slice statements that is also a scalar loop nest: the body compiled
        once where its arrays are large (its fused kernels run on every core), the nest
        where they are small (per iteration the body's replay costs microseconds, the
        nest's loop nanoseconds: a 41-point stencil's time loop). Asked at run time
        (LoopRunner.prefer_native); either one falls back to the other."""
        native_glue = self._native(loop, scanned)
        nest = self.sites[-1]
        nest.instead = "a body compiled once"
        native_glue[-1].body = copy.deepcopy(body_glue)
        flag = f"__npc_pn_{nest.index}"
        params = "".join(p + ", " for p in scanned[0].params)
        choose = _glue(
            f"try:\n    {flag} = __npc_loop__.prefer_native({nest.index}, ({params}))\n"
            f"except NameError:\n    {flag} = False\n"
            f"if {flag}:\n    pass\nelse:\n    pass\n", loop)
        choose[-1].body = native_glue
        choose[-1].orelse = body_glue
        return choose

    def _inner_loops_of_fallback(self, stmts):
        """A body compiled once may hold inner loops (_inner_range_loop), written out
        when it is traced. Where the runner declines (too few iterations) the loop runs
        as written: there its inner loops are rewritten like any loop (a pressure solve
        of many sweeps in a short time loop is a body compiled once, not unrolled)."""
        fallback = stmts[-1].body[0] if stmts and isinstance(stmts[-1], ast.If) and \
            stmts[-1].body else None
        if isinstance(fallback, ast.For) and any(isinstance(b, ast.For) for b in fallback.body):
            self.visit_body_of(fallback)

    def _untraced(self, loop, elements=None):
        """The loop as written, inside `with __npc_loop__.untraced(k, ITER):` (UntracedSite):
        ITER evaluated once, before (a while loop's: None). An element walk's also hands
        in the arrays it indexes (elements: {name: how many indices}), for the runner to
        see that they are elements, not rows."""
        index = len(self.sites)
        self.sites.append(UntracedSite(index, loop.lineno, self._text(loop), elements))
        it = f"__npc_it_{index}"
        arrays = ""
        if elements is not None:
            ua = f"__npc_ua_{index}"
            arrays = (f"try:\n    {ua} = ({''.join(n + ', ' for n in elements)})\n"
                      f"except NameError:\n    {ua} = None\n")
            arrays_arg = f", {ua}"
        else:
            arrays_arg = ""
        before, after = self._plain_names(loop, index)
        if isinstance(loop, ast.While):
            glue = _glue(f"{arrays}with __npc_loop__.untraced({index}, None{arrays_arg}) as "
                         f"__npc_us_{index}:\n    pass\n", loop)
            glue[-1].body = before + [loop]
            return glue + after
        glue = _glue(f"{it} = None\n{arrays}with __npc_loop__.untraced({index}, {it}{arrays_arg})"
                     f" as __npc_us_{index}:\n    pass\n", loop)
        glue = _around_original(glue, loop, it)
        glue[-1].body = before + glue[-1].body
        return glue + after

    def _plain_names(self, loop, index):
        """(statements before, after) an untraced loop: where the runner suspended the
        trace (its context is then not None) the names the loop reads are rebound to
        their values, and after it those it did not rebind to their lazy arrays again.
        A traced array in an untraced loop is a LazyArray whose every index and store
        (`best[wi:] = ...`) went through the lazy array's own methods, 2-3 us each
        against NumPy's 0.1-0.5 (a knapsack by rows ran at 0.36x NumPy). A name not
        bound yet is left alone."""
        names = [n for n in dict.fromkeys(_names_read(loop)) if n in self.locals][:16]
        if not names:
            return [], []

        def each(call):
            return "".join(f"    try:\n        {n} = __npc_loop__.{call}({index}, {n})\n"
                           f"    except NameError:\n        pass\n" for n in names)
        guard = f"if __npc_us_{index} is not None:\n"
        return (_glue(guard + each("plain"), loop),
                _glue(guard + each("lazy_again") + f"    __npc_loop__.plain_done({index})\n",
                      loop))

    def _text(self, loop):
        """The loop's first line as the user wrote it (the report's words)."""
        at = loop.lineno - self.first
        return self.source_lines[at].strip() if 0 <= at < len(self.source_lines) else ""

    def _loop(self, loop):
        if loop.orelse or not isinstance(loop.target, ast.Name) or not loop.body:
            return None
        var = loop.target.id
        if not _straight_line(loop.body, nested=True):
            return None
        # inner loops: not with the loop variable read (its views, _index_views, are
        # made of plain statements) nor with sinks (api/loop_sinks.py reads those)
        inner = any(isinstance(st, ast.For) for st in loop.body)
        if inner and (_data_bounds(_flattened(loop.body)) or
                      any(var in _names_read(st) for st in loop.body)):
            return None
        if _data_bounds(loop.body):
            return None
        index = len(self.sites)
        body, sinks, sunk = (loop.body, None, []) if inner else \
            self._sinks(loop.body, index, loop, var)
        written, views = body, []   # the body as written, its sinks split off
        if any(var in _reads(s) for s in body):
            got = _index_views(body, var, index)
            if got is None:
                return None
            body, views = got
        params, binds = [], []
        for s in body:
            reads = _reads(s)
            for name in reads:
                if name == var:
                    continue        # a view's name (_index_views), not a local
                if name in self.locals and name not in binds and name not in params:
                    params.append(name)
            for name in _binds(s):
                if name is None:
                    return None     # a target this rewrite does not follow
                if name == var:
                    return None
                if name not in binds:
                    binds.append(name)
        # a name the body binds is handed back only when something reads it after the
        # body: the next iteration (a parameter) or code outside the loop. Temporaries
        # stay inside the body's graph (returned, they were written out every
        # iteration, and a view of one made its graph run op by op)
        if self.fdef is not None:
            outside = _loaded_outside(self.fdef, loop)
            binds = [b for b in binds if b in params or b in outside]
        if inner:
            params += self._inner_only(body, binds, params)
        text = self._text(loop)
        carry = [b for b in binds if b in params]
        body_params = params        # the view names are no locals: never among them
        if views:
            view_names = [v for v, _ in views]
            view_params = []
            for _, expr in views:
                for name in _names_read(expr):
                    if name != var and name in self.locals and name not in view_params:
                        view_params.append(name)
            params = body_params + [p for p in view_params if p not in body_params]
            self._add_site(IndexedSite(index, loop.lineno, text, var, params, binds,
                                       body_params, view_names, view_params), sinks)
            self.sites[-1].affine = _affine(views, var)
            # a statement or two over moving windows (`tmp += w[i] * pad[:, i:i + nx]`)
            # or over an array's elements (Horner's `for c in coeffs: y = y * x + c`,
            # api/loop_iterables.py): a filter's taps (loop_runner.WINDOW_TAPS), whose
            # few iterations traced as written fuse into one kernel, not a time loop's
            picks = getattr(loop, "npc_elements", 0)
            self.sites[-1].taps = len(written) - picks <= 2 and (picks > 0 or any(
                isinstance(n, ast.Slice) and var in _names_read(n)
                for _, e in views for n in ast.walk(e)))
            self.body_defs.append(_function(
                f"__npc_views_{index}", [var] + view_params,
                [ast.Return(ast.Tuple([e for _, e in views], ast.Load()))], loop))
            for name, returned in ((f"__npc_ostep_{index}", carry),
                                   (f"__npc_obody_{index}", binds)):
                self.body_defs.append(self._body_function(name, params + [var], copy.deepcopy(
                    written) + [_returning(returned + sunk)], loop))
            body_params = body_params + view_names
        else:
            self._add_site(LoopSite(index, loop.lineno, text, var, params, binds), sinks)
        # two functions of the body: every iteration but the last hands back only what
        # the next one reads (the rest is dead: a convergence check computed per sweep
        # and read after the loop runs once, as in the unrolled graph); the last hands
        # back everything read after the loop
        for name, returned in ((f"__npc_step_{index}", carry), (f"__npc_body_{index}", binds)):
            self.body_defs.append(self._body_function(name, body_params, copy.deepcopy(body) +
                                                      [_returning(returned + sunk)], loop))
        if inner:
            self.body_defs.append(_span_function(index, params, body, loop))
            # iterations traced as written (the body could not be replayed: a Generator's
            # draw per epoch) take the body with its inner loops rewritten like any loop:
            # written out, a mini-batch loop of 32 made each epoch's trace 32 times longer
            # (minibatch_logreg's first call at 4x the epochs: 0.12 s before, 0.51 s)
            for name, returned in ((f"__npc_wstep_{index}", carry),
                                   (f"__npc_wbody_{index}", binds)):
                self.body_defs.append(self._body_function(
                    name, body_params, self._statements(copy.deepcopy(body)) +
                    [_returning(returned + sunk)], loop))
        return self._replacement(loop, index, var, params, binds,
                                 sinks=sinks.targets if sinks else ())

    def _sinks(self, stmts, index, loop, var=None, also_read=()):
        """(the body with its sinks' graph parts in place, Sinks or None, the names of
        the values it hands them): api/loop_sinks.py. Their Python part is made here."""
        got = loop_sinks.extract(stmts, index, self.locals, var, also_read)
        if got is None:
            return stmts, None, []
        body, python, sinks = got
        sunk = loop_sinks.value_names(index, sinks)
        sinks.source = [_function(f"__npc_sink_{index}_{k}", [target, value], stmts, loop)
                        for k, ((target, *stmts), value) in enumerate(zip(python, sunk))]
        return body, sinks, sunk

    def _body_function(self, name, params, stmts, loop):
        """A body function (statements it owns), its min(a, b) and max(a, b) calls made
        pick(min, a, b) (api/loop_picks.py: a traced select where that is exact). The
        helper is a default argument: the function stays no closure, and a cell's body
        (made before its runner exists) keeps the builtins' calls."""
        fn_def = _function(name, params, stmts, loop)
        if self.fdef is None or self.locals & set(_PICKS):
            return fn_def
        swap = _Picks()
        swap.visit(fn_def)
        if swap.made:
            fn_def.args.args.append(ast.arg(arg="__npc_pick"))
            fn_def.args.defaults = [ast.Attribute(ast.Name("__npc_loop__", ast.Load()), "pick",
                                                  ast.Load())]
            ast.fix_missing_locations(fn_def)
        return fn_def

    def _add_site(self, site, sinks):
        """A rewritten loop's site, with its sinks' Python part among the functions made."""
        site.sinks = sinks
        self.sites.append(site)
        if sinks is not None:
            self.body_defs.extend(sinks.source)

    def _inner_only(self, body, binds, params):
        """The names among `binds` that only an inner loop of `body` binds, not yet in
        `params`: each keeps its value where that loop runs no iteration (`for q in
        range(nit)` with nit 0, q read after the loop), so the body is handed it as a
        carried value (unbound before the loop, the loop runs as written, and Python
        says so where it is read)."""
        top = {b for st in body if not isinstance(st, ast.For) for b in _binds(st)}
        return [b for b in binds if b not in top and b not in params and b in self.locals]

    def _inside_a_loop(self, loop):
        """Is this loop (or the one it was rewritten from: same place) inside another?"""
        at = (loop.lineno, loop.col_offset)
        for outer in ast.walk(self.fdef):
            if isinstance(outer, (ast.For, ast.While)) and \
                    (outer.lineno, outer.col_offset) != at and any(
                        isinstance(n, (ast.For, ast.While)) and (n.lineno, n.col_offset) == at
                        for st in outer.body for n in ast.walk(st)):
                return True
        return False

    def _while(self, loop):
        """`while COND: BODY` with a straight-line body, or one holding inner `for NAME
        in range(...)` loops (_inner_range_loop): api/loop_runner.py evaluates COND in
        Python on the loop's values and runs BODY compiled once per iteration. A body
        that ends in `if TEST: ...; break` (a Newton iteration's `if norm(dz) < tol:
        converged = True; break`) has TEST asked after each run, on what it made, and
        the statements before the break run once, as written, where it held."""
        if loop.orelse or not loop.body or self.fdef is None:
            return None
        body, exit_test, on_exit = loop.body, None, []
        last = body[-1]
        # (not inside another loop: one that runs as written would enter the runner at
        # each of its iterations, and a Newton solve of two unknowns per time step ran
        # 4x slower so than traced as written)
        if isinstance(last, ast.If) and not last.orelse and not self._inside_a_loop(loop) and \
                isinstance(last.body[-1], ast.Break) and len(body) > 1 and \
                not any(isinstance(n, _BRANCH_FORBIDDEN) for st in last.body[:-1]
                        for n in ast.walk(st)) and _straight_line([last.test]):
            body, exit_test, on_exit = body[:-1], last.test, last.body[:-1]
        exit_names = [n for st in on_exit for n in _names_read(st)] + \
            (_names_read(exit_test) if exit_test is not None else [])
        # inner `for NAME in range(...)` loops are written out when the body is traced,
        # as in a for loop's body (_loop): a convergence loop around a row-by-row
        # Gauss-Seidel or SOR sweep is one body compiled once, not a sweep re-entered
        # and settled again from Python at every iteration (0.4x NumPy)
        if not _straight_line(body, nested=True) or not _straight_line([loop.test]):
            return None
        inner = [st for st in body if isinstance(st, ast.For)]
        if inner:
            bound_in_body = {b for st in body for b in _binds(st)}
            if _data_bounds(_flattened(body)) or any(
                    n in bound_in_body for st in inner for n in _names_read(st.iter)):
                return None
        index = len(self.sites)
        written, sinks, sunk = (body, None, []) if inner else \
            self._sinks(body, index, loop, also_read=_names_read(loop.test) + exit_names)
        reads_of = [_reads(s) for s in written]
        counters = []
        for k, s in enumerate(written):
            if isinstance(s, ast.AugAssign) and isinstance(s.target, ast.Name) and \
                    isinstance(s.op, (ast.Add, ast.Sub)) and isinstance(s.value, ast.Constant) \
                    and type(s.value.value) is int:
                name = s.target.id
                others = [j for j in range(len(written)) if j != k]
                if not any(name in reads_of[j] or name in (_binds(written[j]) or [])
                           for j in others) and name not in counters:
                    counters.append(name)
        body = [s for s in written if not (isinstance(s, ast.AugAssign) and
                                              isinstance(s.target, ast.Name) and
                                              s.target.id in counters)]
        params, binds = [], []
        cond_reads = _names_read(loop.test)
        bound_here = {b for st in body for b in (_binds(st) or [])}
        # what TEST reads from before the loop is part of the loop's state too
        test_reads = [n for n in (_names_read(exit_test) if exit_test is not None else [])
                      if n not in bound_here]
        for name in cond_reads + counters + test_reads:
            if name in self.locals and name not in params:
                params.append(name)
        for s in body:
            for name in _reads(s):
                if name in self.locals and name not in binds and name not in params:
                    params.append(name)
            for name in _binds(s):
                if name is None:
                    return None
                if name not in binds:
                    binds.append(name)
        if not body or any(c in binds for c in counters):
            return None
        outside = _loaded_outside(self.fdef, loop) | set(exit_names)
        binds = [b for b in binds if b in params or b in outside]
        body_reads = {name for st in body for name in _reads(st)}
        if inner:
            kept = self._inner_only(body, binds, params)
            params += kept
            body_reads.update(kept)
        text = self._text(loop)
        self._add_site(WhileSite(index, loop.lineno, text, params, binds, counters, body_reads,
                                 cond_reads), sinks)
        counting = [s for s in written if s not in body]
        made = (
            (f"__npc_wbody_{index}", self.sites[-1].body_params, copy.deepcopy(body),
             binds + sunk),
            (f"__npc_wcount_{index}", counters, copy.deepcopy(counting), counters))
        for name, fn_args, stmts, returned in made:
            self.body_defs.append(self._body_function(name, fn_args, stmts +
                                                      [_returning(returned)], loop))
        self.body_defs.append(_function(f"__npc_wcond_{index}", params,
                                        [ast.Return(copy.deepcopy(loop.test))], loop))
        if exit_test is not None:
            # TEST of the values after a run: the body's binds, then the loop's state
            self.body_defs.append(_function(f"__npc_wexit_{index}", binds + [
                p for p in params if p not in binds], [ast.Return(copy.deepcopy(exit_test))],
                loop))
        if inner:
            self.body_defs.append(_span_function(index, params, inner, loop))
        args, r = f"__npc_args_{index}", f"__npc_r_{index}"
        targets = sinks.targets if sinks else []
        names = binds + counters + targets
        template = (
            f"try:\n    {args} = ({''.join(p + ', ' for p in params + targets)})\n"
            f"except NameError:\n    {args} = None\n"
            f"{r} = __npc_loop__.whiles({index}, {args})\n"
            f"if {r} is None:\n    pass\n"
            f"elif {r}:\n    ({''.join(b + ', ' for b in names)}) = {r}\n")
        if exit_test is not None:
            template += f"if {r} is not None and __npc_loop__.exited({index}):\n    pass\n"
        stmts = _glue(template, loop)
        if exit_test is not None:      # where TEST held: what came before the break
            stmts[-1].body = copy.deepcopy(on_exit) + [ast.copy_location(ast.Pass(), loop)]
        loop = getattr(loop, "npc_original", loop)      # not its `if`s made selects
        stmts[-1 if exit_test is None else -2].body = [loop]
        if inner:
            self.visit_body_of(loop)     # the loop as written: its sweeps compiled bodies
        return stmts

    def _exit_loop(self, loop):
        """`for NAME in ITER:` with one `if TEST: break` (or `return EXPR`) among
        straight-line statements, only renames after it: the runner (loop_runner.exits)
        runs what precedes the test compiled once, and tests TEST in Python. Statements
        before the break in the `if` (`converged = True; break`, `k_final = k; break`)
        run once, as written, after the runner stops where the test held."""
        if loop.orelse or not isinstance(loop.target, ast.Name) or self.fdef is None:
            return None
        exits = [k for k, st in enumerate(loop.body) if isinstance(st, ast.If)]
        if len(exits) != 1:
            return None
        k = exits[0]
        pre, check, post = loop.body[:k], loop.body[k], loop.body[k + 1:]
        if not pre or check.orelse or not check.body or \
                not isinstance(check.body[-1], (ast.Break, ast.Return)):
            return None
        exit_stmt, on_exit = check.body[-1], check.body[:-1]
        if any(isinstance(n, _BRANCH_FORBIDDEN) for st in on_exit for n in ast.walk(st)):
            return None
        renames = []
        for st in post:
            if not (isinstance(st, ast.Assign) and len(st.targets) == 1 and
                    isinstance(st.targets[0], ast.Name) and isinstance(st.value, ast.Name)):
                return None
            renames.append((st.targets[0].id, st.value.id))
        var = loop.target.id
        exit_value = [exit_stmt.value] if isinstance(exit_stmt, ast.Return) and exit_stmt.value else []
        if not _straight_line(pre) or not _straight_line([check.test] + exit_value):
            return None
        test_reads = [n for n in dict.fromkeys(_names_read(check.test)) if n in self.locals]
        index = len(self.sites)
        # `dev.append(d)` before the test (a residual history): its Python part runs
        # after each run (api/loop_sinks.py); in the body, the list made it trace every
        # iteration (a list argument has no replay key). Not one the test or the exit
        # reads, nor a rename's source.
        exit_names = [n for st in [exit_stmt] + on_exit for n in _names_read(st)]
        pre, sinks, sunk = self._sinks(pre, index, loop, var, also_read=list(_names_read(
            check.test)) + exit_names + [src for _, src in renames])
        params, bound = [], []

        def read(name):
            if name in self.locals and name not in bound and name not in params:
                params.append(name)
        for st in pre:
            for name in _reads(st):
                read(name)
            for name in _binds(st):
                if name is None:
                    return None
                if name not in bound:
                    bound.append(name)
        for name in test_reads:
            read(name)
        for target, source in renames:
            read(source)
            if target not in bound:
                bound.append(target)
        if var in params or var in bound or var in test_reads:
            return None
        exit_reads = set(exit_names)
        later = _loaded_outside(self.fdef, loop) | exit_reads
        sources = {src for _, src in renames}
        made = [b for b in dict.fromkeys(n for st in pre for n in _binds(st))
                if b in params or b in later or b in test_reads or b in sources]
        binds = [b for b in bound if b in later and b not in sunk]
        self._add_site(ExitSite(index, loop.lineno, self._text(loop), var, params, made,
                                renames, test_reads, binds), sinks)
        self.body_defs.append(self._body_function(f"__npc_xbody_{index}", params,
                                        copy.deepcopy(pre) + [_returning(made + sunk)], loop))
        self.body_defs.append(_function(f"__npc_xtest_{index}", test_reads,
                                        [ast.Return(copy.deepcopy(check.test))], loop))
        if _tests_arrays(check.test):
            # the body's values, TEST, then the sinks' values (Fed.take takes those last)
            ret = _returning(made)
            ret.value.elts.append(copy.deepcopy(check.test))
            ret.value.elts += _returning(sunk).value.elts
            self.body_defs.append(self._body_function(f"__npc_xtbody_{index}", params,
                                                      copy.deepcopy(pre) + [ret], loop))
        stmts = self._replacement(loop, index, var, params, binds, "__npc_loop__.exits",
                                  sinks=sinks.targets if sinks else ())
        # where the test held: `return EXPR` here, with the names bound as it left them
        stmts[-1].orelse[-1].body = copy.deepcopy(on_exit) + [
            copy.deepcopy(exit_stmt) if isinstance(exit_stmt, ast.Return)
            else ast.copy_location(ast.Pass(), exit_stmt)]
        return stmts

    def _split(self, loop):
        """`for NAME in ITER:` whose body holds `if` statements among straight-line
        statements (api/loop_split.py): the runner (loop_runner.splits) runs each run of
        straight-line statements compiled once, each TEST in Python and the branch it
        picks as plain Python. The loop's values come from locals() at the loop: a name
        not bound yet is unbound for the code that reads it, as in the loop as written."""
        if loop.orelse or not isinstance(loop.target, ast.Name) or self.fdef is None or \
                not any(isinstance(st, ast.If) for st in loop.body):
            return None
        var, index = loop.target.id, len(self.sites)
        items, defs, params, definite, anywhere = [], [], [], set(), set()
        unbound = ast.Attribute(ast.Name("__npc_loop__", ast.Load()), "unbound", ast.Load())

        def read(names):
            names = [n for n in dict.fromkeys(names) if n in self.locals]
            params.extend(n for n in names if n != var and n not in params)
            return names

        def lenient(name, reads, stmts):
            """A function of `reads` given by keyword, each left unbound where the loop's
            values do not hold it."""
            dels = [ast.parse(f"if {r} is __npc_unbound:\n    del {r}").body[0] for r in reads]
            fn = _function(name, [], dels + stmts, loop)
            fn.args.args = [ast.arg(arg="__npc_unbound")]
            fn.args.defaults = [copy.deepcopy(unbound)]
            fn.args.kwonlyargs = [ast.arg(arg=r) for r in reads]
            fn.args.kw_defaults = [copy.deepcopy(unbound) for _ in reads]
            return fn
        k, body = 0, loop.body
        while k < len(body):
            st = body[k]
            if isinstance(st, ast.If):
                if any(isinstance(n, _BRANCH_FORBIDDEN) for n in ast.walk(st)) or \
                        not _straight_line([st.test]):
                    return None
                reads = read(_names_read(st.test))
                names = [f"__npc_stest_{index}_{k}", f"__npc_sthen_{index}_{k}",
                         f"__npc_selse_{index}_{k}" if st.orelse else None]
                defs.append(lenient(names[0], reads, [ast.Return(copy.deepcopy(st.test))]))
                branch_reads, branch_writes = [], []
                for name, stmts in zip(names[1:], (st.body, st.orelse)):
                    found = [x.id for s_ in stmts for x in ast.walk(s_) if isinstance(x, ast.Name)]
                    branch_writes.append(_written_names(stmts))
                    anywhere.update(x.id for s_ in stmts for x in ast.walk(s_)
                                    if isinstance(x, ast.Name) and isinstance(x.ctx, ast.Store))
                    branch_reads.append(read(found))
                    if name is not None:
                        defs.append(lenient(name, branch_reads[-1], copy.deepcopy(stmts) + [
                            ast.Return(ast.Call(ast.Name("locals", ast.Load()), [], []))]))
                items.append(Branch(names[0], reads, names[1], branch_reads[0], names[2],
                                    branch_reads[1], branch_writes))
                k += 1
                continue
            run = []
            while k < len(body) and not isinstance(body[k], ast.If):
                run.append(body[k])
                k += 1
            if not _straight_line(run):
                return None
            seg_params, seg_binds = [], []
            for s_ in run:
                for name in _reads(s_):
                    if name == var:
                        return None     # a segment reading the loop variable
                    if name in self.locals and name not in seg_binds and name not in seg_params:
                        seg_params.append(name)
                for name in _binds(s_):
                    if name is None or name == var:
                        return None
                    if name not in seg_binds:
                        seg_binds.append(name)
            read(seg_params)
            definite.update(seg_binds)
            anywhere.update(seg_binds)
            name = f"__npc_sseg_{index}_{k}"
            defs.append(self._body_function(name, seg_params, copy.deepcopy(run) +
                                            [_returning(seg_binds)], loop))
            items.append(Segment(name, seg_params, seg_binds))
        if var in anywhere:
            return None
        later = _loaded_outside(self.fdef, loop)
        binds = [b for b in sorted(anywhere) if b in later]
        # bound on some paths only and read after the loop: the runner declines unless
        # bound before it (else the loop as written leaves it unbound)
        maybe = [b for b in binds if b not in definite]
        self.sites.append(SplitSite(index, loop.lineno, self._text(loop), var, params, items,
                                    binds, maybe))
        self.body_defs.extend(defs)
        it, r = f"__npc_it_{index}", f"__npc_r_{index}"
        stmts = _glue(
            f"{it} = None\n"
            f"{r} = __npc_loop__.splits({index}, {it}, locals())\n"
            f"if {r} is None:\n    pass\n"
            f"else:\n    {var} = {r}[0]\n"
            + (f"    ({''.join(b + ', ' for b in binds)}) = {r}[1]\n" if binds else ""), loop)
        return _around_original(stmts, loop, it)

    def _native(self, loop, scanned):
        """A loop nest of scalar code (native_loop.scan's verdict): asked of
        api/native_loop.py first, then run as written."""
        if scanned is None:
            return None
        nest, stored = scanned
        index = len(self.sites)
        text = self._text(loop)
        self.sites.append(native_loop.NativeSite(index, loop.lineno, text, nest, stored,
                                                 self.globals))
        args, r = f"__npc_na_{index}", f"__npc_nr_{index}"
        template = (
            f"try:\n    {args} = ({''.join(p + ', ' for p in nest.params)})\n"
            f"except NameError:\n    {args} = None\n"
            f"{r} = __npc_loop__.native({index}, {args})\n"
            f"if {r} is None:\n    pass\n"
            f"else:\n    pass\n"
            + "".join(f"    if {name!r} in {r}:\n        {name} = {r}[{name!r}]\n"
                      for name in nest.outputs))
        stmts = _glue(template, loop)
        stmts[-1].body = [loop]
        return stmts

    @staticmethod
    def _replacement(loop, index, var, params, binds, runner="__npc_loop__", sinks=()):
        """The glue around a `for` loop; with an exit test (runner .exits), its result's
        third item says whether the test held (an `if` the caller fills in, last). The
        sinks' targets go in after the parameters and come back after the binds."""
        params, binds = list(params) + list(sinks), list(binds) + list(sinks)
        exits = runner != "__npc_loop__"
        it, args, r = f"__npc_it_{index}", f"__npc_args_{index}", f"__npc_r_{index}"
        template = (
            f"{it} = None\n"
            f"try:\n    {args} = ({''.join(p + ', ' for p in params)})\n"
            f"except NameError:\n    {args} = None\n"
            f"{r} = {runner}({index}, {it}, {args})\n"
            f"if {r} is None:\n    pass\n"
            f"else:\n    {var} = {r}[0]\n"
            + (f"    ({''.join(b + ', ' for b in binds)}) = {r}[1]\n" if binds else "")
            + (f"    if {r}[2]:\n        pass\n" if exits else ""))
        return _around_original(_glue(template, loop), loop, it)


_PICKS = ("min", "max")


class _Picks(ast.NodeTransformer):
    """min(a, b) -> __npc_pick(min, a, b), and max alike (two positional arguments)."""
    made = False

    def visit_Call(self, node):
        self.generic_visit(node)
        f = node.func
        if isinstance(f, ast.Name) and f.id in _PICKS and len(node.args) == 2 and \
                not node.keywords and not any(isinstance(a, ast.Starred) for a in node.args):
            self.made = True
            return ast.copy_location(ast.Call(ast.Name("__npc_pick", ast.Load()),
                                              [f] + node.args, []), node)
        return node


def _span_function(index, params, body, loop):
    """__npc_wspan_K(params): how many inner iterations a body compiled once writes out,
    from the values before the loop. Past loop_runner.WRITE_OUT the runner declines, and
    the loop runs as written with its inner loops compiled bodies of their own: a 200-row
    sweep written out into a while loop's body took 5 s to compile, and an epoch loop's
    32 mini-batches written out made a body of 576 ops (0.1 s) that never replayed (its
    Generator draws per epoch). A range that reads a name the body binds raises
    NameError, and the runner declines as well."""
    total = ast.Constant(0)
    for st in body:
        if isinstance(st, ast.For):
            total = ast.BinOp(total, ast.Add(), ast.Call(ast.Name("len", ast.Load()),
                                                         [copy.deepcopy(st.iter)], []))
    return _function(f"__npc_wspan_{index}", params, [ast.Return(total)], loop)


def _straight_line(nodes, nested=False):
    """Statements (or expressions) a body function may hold: assignments, augmented
    assignments, expression statements and pass, none making a function, a generator or
    a walrus binding (a bare annotation binds nothing: not followed). With nested, also
    an inner loop `for NAME in range(...)` of such statements (_inner_range_loop)."""
    for node in nodes:
        if nested and _inner_range_loop(node):
            continue
        if isinstance(node, ast.stmt) and not isinstance(node, _SIMPLE):
            return False
        if isinstance(node, ast.AnnAssign) and node.value is None:
            return False
        if any(isinstance(n, _FORBIDDEN) for n in ast.walk(node)):
            return False
    return True


def _inner_range_loop(node):
    """`for NAME in range(...):` over straight-line statements, with no else: inside a
    body compiled once it runs as Python while the body is traced, so the body's graph
    holds its iterations written out, the same at every run of the body as long as its
    bounds are (a time step's Jacobi sweeps `for q in range(nit)`: traced per time step,
    the whole step was traced and flushed again at each of them, 0.70x NumPy on
    cavity_flow). Bounds that are Python numbers the body does not bind are part of
    the body's key (a new value traces it again); a bound from the data is not taken."""
    return isinstance(node, ast.For) and not node.orelse and \
        isinstance(node.target, ast.Name) and isinstance(node.iter, ast.Call) and \
        isinstance(node.iter.func, ast.Name) and node.iter.func.id == "range" and \
        not node.iter.keywords and bool(node.body) and _straight_line(node.body)


def _flattened(stmts):
    """The statements with each inner loop replaced by its body (what _data_bounds and
    the name walks read)."""
    out = []
    for st in stmts:
        out.extend(st.body if isinstance(st, ast.For) else [st])
    return out


def _names_read(node):
    """The names an expression or statement reads, in walk order."""
    return [n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]


def _tests_arrays(test):
    """Is an exit test a comparison that calls something (`np.max(np.abs(x_new - x)) <
    tol`, `np.abs(new - pi).sum() < tol`)? Such a test is worth computing inside the
    compiled body: in Python it was three NumPy calls per iteration, most of a small
    solver's time. A comparison of names alone (`err < tol`) costs nothing in Python."""
    return isinstance(test, ast.Compare) and len(test.ops) == 1 and \
        any(isinstance(n, ast.Call) for n in ast.walk(test)) and \
        not any(isinstance(n, (ast.BoolOp, ast.IfExp, ast.NamedExpr, ast.Lambda))
                for n in ast.walk(test))


def _returning(names):
    return ast.Return(ast.Tuple([ast.Name(b, ast.Load()) for b in names], ast.Load()))


def _function(name, params, body, loop):
    fn_def = ast.FunctionDef(
        name=name,
        args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=p) for p in params], vararg=None,
                           kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
        body=body, decorator_list=[], returns=None, type_comment=None)
    ast.copy_location(fn_def, loop)
    return fn_def


def _around_original(stmts, loop, it):
    """Glue statements whose first evaluates ITER once (into `it`) and whose last (an
    `if` the runner declined, a `with`) runs the user's loop over it as written."""
    stmts[0].value = loop.iter
    body = getattr(loop, "npc_original", loop).body     # not its `if`s made selects
    original = ast.For(target=loop.target, iter=ast.Name(it, ast.Load()), body=body,
                       orelse=loop.orelse, type_comment=None)
    ast.copy_location(original, loop)
    ast.copy_location(original.iter, loop)
    stmts[-1].body = [original]
    return stmts


def _glue(template, loop):
    """The statements of `template`, all on the loop's own line: errors and reports in
    the glue point at the loop the user wrote."""
    stmts = ast.parse(template).body
    for s in stmts:
        for n in ast.walk(s):
            if hasattr(n, "lineno"):
                n.lineno = n.end_lineno = loop.lineno
                n.col_offset, n.end_col_offset = loop.col_offset, loop.col_offset
    return stmts


def _loaded_outside(fdef, loop):
    """Names read anywhere in the function except inside this loop's body."""
    while hasattr(loop, "npc_written"):         # the loop as it stands in fdef
        loop = loop.npc_written
    inside = {id(n) for s in loop.body for n in ast.walk(s)}
    return {n.id for n in ast.walk(fdef)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and id(n) not in inside}


def _reads(stmt):
    """Names a statement reads, in evaluation order (value before targets; an augmented
    assignment reads its target first). An inner loop (_inner_range_loop) reads its
    range's names, then what its statements read before the loop itself binds it (a
    name bound by an earlier statement of its body is its own)."""
    if isinstance(stmt, ast.For):
        names = _names_read(stmt.iter)
        own = {stmt.target.id}
        for st in stmt.body:
            names += [n for n in _reads(st) if n not in own]
            own.update(b for b in _binds(st) if b is not None)
        return names
    names = []
    if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
        names.append(stmt.target.id)
    parts = []
    if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
        if stmt.value is not None:
            parts.append(stmt.value)
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        for t in targets:   # x[i] = v reads x and i; x.a = v reads x
            if not isinstance(t, ast.Name):
                parts.append(t)
    elif isinstance(stmt, ast.Expr):
        parts.append(stmt.value)
    for p in parts:
        for n in ast.walk(p):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                names.append(n.id)
    return names


def _binds(stmt):
    """Names a statement binds; None for a target this rewrite does not follow. An inner
    loop binds its variable and what its statements bind."""
    if isinstance(stmt, ast.For):
        out = [stmt.target.id] if isinstance(stmt.target, ast.Name) else [None]
        for st in stmt.body:
            out += _binds(st)
        return out
    if isinstance(stmt, ast.Assign):
        targets = stmt.targets
    elif isinstance(stmt, (ast.AugAssign, ast.AnnAssign)):
        targets = [stmt.target]
    else:
        return []
    out = []
    for t in targets:
        if isinstance(t, ast.Name):
            out.append(t.id)
        elif isinstance(t, (ast.Tuple, ast.List)):
            for e in t.elts:
                if isinstance(e, ast.Name):
                    out.append(e.id)
                elif isinstance(e, (ast.Subscript, ast.Attribute)):
                    continue
                else:
                    return [None]
        elif isinstance(t, (ast.Subscript, ast.Attribute)):
            continue
        else:
            return [None]
    return out


# An inner loop over a literal (`for (i, j) in ((1, 1), (2, 2)):`, `for d in range(3):`)
# is the same few iterations every time: written out, the outer loop's body is straight
# line and compiles once, where kept it unrolled the outer loop into the graph (a
# red-black sweep's four sub-grids made a 30-sweep solve 120 traced kernels, 4x the
# sweeps nearly 3x the first call). Bounded so that the body stays small.
_STATIC_MAX_ITERATIONS = 32
_STATIC_MAX_STATEMENTS = 256
_STATIC_MAX_NAMES = 8     # `for Z in (U, V):`, `for m in (black, ~black):`: this many values


def _with_static_loops_unrolled(loop, globals_):
    """The loop, or a copy whose body has its inner loops over literals written out
    (npc_written: the loop as it stands in the function). Not where `range` is the
    user's own name."""
    body = _unroll_static(loop.body) if "range" not in globals_ else loop.body
    if body is loop.body:
        return loop
    flat = copy.copy(loop)
    flat.body = body
    flat.npc_written = loop
    return flat


def _unroll_static(stmts):
    """stmts with each `for TARGET in LITERAL:` (no else, no break/continue) written out
    as `TARGET = value` then the body, per value; stmts itself when there is none."""
    out, changed = [], False
    for s in stmts:
        values = _static_values(s.iter) if isinstance(s, ast.For) else None
        if values is None or s.orelse or \
                any(isinstance(n, (ast.Break, ast.Continue)) for b in s.body for n in ast.walk(b)):
            out.append(s)
            continue
        inner = _unroll_static(s.body)
        if len(values) * (len(inner) + 1) > _STATIC_MAX_STATEMENTS:
            out.append(s)
            continue
        if not all(_constant(v) for v in values):
            # `for mask in (black, ~black):` evaluates its tuple once, before the first
            # iteration, left to right: so do temporaries here, and each iteration binds
            # its target to one of them (a name rebound by the body in between, or an
            # expression with effects, sees exactly what the loop as written sees)
            temps = [f"__npc_lit{s.lineno}_{s.col_offset}_{k}" for k in range(len(values))]
            once = ast.Assign(targets=[ast.Tuple([ast.Name(t, ast.Store()) for t in temps],
                                                 ast.Store())],
                              value=ast.Tuple([copy.deepcopy(v) for v in values], ast.Load()),
                              type_comment=None)
            out.append(ast.fix_missing_locations(ast.copy_location(once, s)))
            values = [ast.copy_location(ast.Name(t, ast.Load()), s) for t in temps]
        for v in values:
            bind = ast.Assign(targets=[copy.deepcopy(s.target)], value=v, type_comment=None)
            ast.copy_location(bind, s)
            out.append(ast.fix_missing_locations(bind))
            out.extend(copy.deepcopy(inner))
        changed = True
    return out if changed else stmts


def _static_values(node):
    """The value expressions of a literal iterable: a tuple or list display without
    starred items (constants, or up to _STATIC_MAX_NAMES expressions of any kind), or
    range() of int constants; None otherwise."""
    if isinstance(node, (ast.Tuple, ast.List)):
        if any(isinstance(e, ast.Starred) for e in node.elts):
            return None
        if all(_constant(e) for e in node.elts):
            return list(node.elts) if len(node.elts) <= _STATIC_MAX_ITERATIONS else None
        return list(node.elts) if 0 < len(node.elts) <= _STATIC_MAX_NAMES else None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
            node.func.id == "range" and not node.keywords and 1 <= len(node.args) <= 3 and \
            all(isinstance(a, ast.Constant) and type(a.value) is int for a in node.args):
        r = range(*[a.value for a in node.args])
        if len(r) <= _STATIC_MAX_ITERATIONS:
            return [ast.copy_location(ast.Constant(v), node) for v in r]
    return None


def _constant(node):
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return isinstance(node.operand, ast.Constant)
    return isinstance(node, ast.Tuple) and all(_constant(e) for e in node.elts)


# what an index that reads the loop variable may be made of: no call (it is evaluated
# once per iteration before the body, which must change nothing); `A.shape[1]` is read
_INDEX_OPS = (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod, ast.USub, ast.UAdd,
              ast.Attribute, ast.Subscript, ast.Tuple)


def _index_views(body, var, index):
    """(body with each subscript indexed by the loop variable read as a view `v[()]`,
    [(view name, the view's expression `base[key, ...]`)], the variable itself last
    where the body reads it as a number), or None where the body binds the variable,
    indexes by it an array it rebinds, or by a slice of it whose length changes
    (_window says which slices move and keep their length)."""
    bound = set()
    for st in body:
        names = _binds(st)
        if None in names:
            return None
        bound.update(names)
    if var in bound:
        return None
    views, named = [], {}

    class Views(ast.NodeTransformer):
        failed = False

        def visit_Subscript(self, node):
            self.generic_visit(node)            # inner subscripts first: x[idx[t]]
            if var not in _names_read(node.slice):
                return node
            if not isinstance(node.value, ast.Name) or node.value.id in bound or \
                    node.value.id == var or not _element_index(node.slice, var, bound):
                self.failed = True
                return node
            elts = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
            elts, inner = _fixed_slices_inside(elts, var)
            if not any(isinstance(e, ast.Constant) and e.value is Ellipsis for e in elts):
                elts.append(ast.Constant(Ellipsis))   # a view even where it picks an element
            expr = ast.Subscript(value=ast.Name(node.value.id, ast.Load()),
                                 slice=ast.Tuple(elts, ast.Load()), ctx=ast.Load())
            key = ast.dump(expr)
            if key not in named:
                named[key] = f"__npc_v{index}_{len(views)}"
                views.append((named[key], expr))
            new = ast.Subscript(value=ast.Name(named[key], ast.Load()),
                                slice=ast.Tuple(inner, ast.Load()), ctx=node.ctx)
            return ast.copy_location(new, node)

    walker = Views()
    out = [walker.visit(copy.deepcopy(st)) for st in body]
    if walker.failed:
        return None
    if any(var in _names_read(st) for st in out):
        # the variable read as a number (`np.cos(w * t * dt)`, `out[mask] = i`): handed
        # in under its own name as a 0-d array per iteration (IndexedSite.value_at)
        views.append((var, ast.Name(var, ast.Load())))
    for st in out:
        ast.fix_missing_locations(st)
    return out, views


def _fixed_slices_inside(elts, var):
    """(the key of the view handed to the body, the key the body applies to it): slices
    that do not move with the loop variable stay in the body. `u[i, 1:-1]` and
    `u[i, :-2]` of a Gauss-Seidel row sweep are then one view `u[i, :]` read through two
    slices in one trace, whose in-place write the tracer orders as NumPy does; as two
    views they were two overlapping inputs, and the write broke the graph ('alias') at
    every traced iteration. Keys with `...`, None or only full slices stay as they are."""
    def full(e):
        return isinstance(e, ast.Slice) and e.lower is None and e.upper is None and \
            e.step is None
    fixed = [isinstance(e, ast.Slice) and var not in _names_read(e) for e in elts]
    if any(isinstance(e, ast.Constant) and e.value in (Ellipsis, None) for e in elts) or \
            all(full(e) for e, f in zip(elts, fixed) if f):
        return elts, []
    outer, inner = [], []
    for e, f in zip(elts, fixed):
        outer.append(ast.Slice(None, None, None) if f else e)
        if f:
            inner.append(e)
        elif isinstance(e, ast.Slice):     # a moving window keeps its axis whole
            inner.append(ast.Slice(None, None, None))
    return outer, inner


def _affine(views, var):
    """Is every view (_index_views) indexed by `var` plus or minus an expression free of
    it, or by a window of such bounds? Then its address is affine in var (a product or a
    modulo of var is not: `x[2 * t]`, `x[t % n]` are made per iteration)."""
    def free(e):        # (a view's names are none the body binds: _index_views)
        return var not in _names_read(e) and _index_expr(e, ())
    for name, expr in views:
        if name == var:
            continue        # the loop value itself, a 0-d array per iteration
        for part in expr.slice.elts:
            if var not in _names_read(part):
                continue
            if not (_window(part, var, ()) if isinstance(part, ast.Slice) else
                    _offset(part, var, free)):
                return False
    return True


def _reads_as_number(loop):
    """Does a loop's body read its variable as a number (not only as whole indices)?"""
    if not isinstance(loop.target, ast.Name):
        return False
    got = _index_views(loop.body, loop.target.id, 0)
    return got is not None and bool(got[1]) and got[1][-1][0] == loop.target.id


def _element_index(key, var, bound):
    """A subscript's key where the loop variable appears only in whole indices built of
    names the body does not bind, constants and arithmetic."""
    parts = key.elts if isinstance(key, ast.Tuple) else [key]
    for part in parts:
        if isinstance(part, ast.Slice):
            if any(n == var or n in bound for n in _names_read(part)) and \
                    not _window(part, var, bound):
                return False
            continue
        if not _index_expr(part, bound):
            return False
    return True


def _index_expr(node, bound):
    """Names the body does not bind, constants and arithmetic only."""
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            if n.id in bound:
                return False
        elif not isinstance(n, (ast.Constant, ast.BinOp, ast.UnaryOp, ast.Load) + _INDEX_OPS):
            return False
    return True


def _window(part, var, bound):
    """A slice that moves with the loop variable and keeps its length: `x[s:s + w]`,
    `x[i - 1:i + 2]`, `perm[s:s + bs:2]` (a batch, a rolling window). Its view has the
    same shape at every iteration but where it is clipped at an end; there the compiled
    body's input check fails, and that iteration is traced for its own shape. A slice
    whose length changes every iteration (`A[k:, k]`) would trace every iteration."""
    def free(e):
        return var not in _names_read(e) and _index_expr(e, bound)
    return part.lower is not None and part.upper is not None and \
        _offset(part.lower, var, free) and _offset(part.upper, var, free) and \
        (part.step is None or free(part.step))


def _offset(e, var, free):
    """Is `e` var, var + E, var - E or E + var, with free(E)?"""
    if isinstance(e, ast.Name):
        return e.id == var
    if not isinstance(e, ast.BinOp) or not isinstance(e.op, (ast.Add, ast.Sub)):
        return False
    if isinstance(e.left, ast.Name) and e.left.id == var:
        return free(e.right)
    return isinstance(e.op, ast.Add) and isinstance(e.right, ast.Name) and \
        e.right.id == var and free(e.left)
