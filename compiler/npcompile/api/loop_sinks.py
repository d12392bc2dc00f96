"""Statements of a loop body that only feed Python (a residual history, an error count):
the compiled body computes their NumPy part, Python does the rest after each iteration.

    hist.append(np.abs(r).max())      # the list the loop records into
    errors += int(wrong.any())        # a Python int counting
    err = max(err, np.abs(d).max())   # a running maximum

Compiled as written, such a statement stops the body from replaying: the body changes a
list it receives (an effect outside the graph), or int()/max() read an array value (a
graph break). Yet the body itself never looks at `hist`, `errors` or `err`: only that
statement does. So the statement is split in two (a "sink"):

* its graph part (the appended value, the argument of int()/float(), max's other
  argument) stays in the body where it was, `__npc_s<site>_<k> = EXPR`, and the body
  returns it beside the loop's values;
* its Python part (`hist.append(v)`, `errors += int(v)`, `err = max(err, v)`) runs in
  Python, on the value the body returned, once per iteration and in the body's order,
  with the user's own names (a shadowed `int` or `max` is the user's here too).

Python then computes exactly what it computes eagerly, on the same values: NumPy
scalars stay NumPy scalars of their type, a Python int stays a Python int, max keeps
Python's rule (the first of equals, NaN as it comes), and each appended array is the
object the body made that iteration.

Why this is the same program: the target (`hist`, `errors`, `err`) is read or bound by
no other statement of the body, and the graph part does not read it; so moving its
Python part after the rest of the body changes nothing the body sees. What could tell
the difference is an error: int(nan) raises where the statement stands, before the
statements after it ran. A Python part that can raise (a conversion, a comparison) is
therefore split only when every statement after it is another sink or binds plain names
with no effect outside the body (`w = w + lr * g`); list.append raises nothing."""
import ast
import copy

import numpy as np

_CONVERSIONS = ("int", "float")
_PICKS = ("min", "max")
# calls a statement after a sink may make: NumPy functions and array methods that
# change none of their arguments (no out=), and builtins that do not either
_PURE_METHODS = frozenset((
    "sum", "prod", "mean", "std", "var", "min", "max", "argmin", "argmax", "any", "all",
    "copy", "astype", "reshape", "ravel", "flatten", "transpose", "swapaxes", "squeeze",
    "dot", "cumsum", "cumprod", "round", "clip", "diagonal", "take", "nonzero", "conj",
    "conjugate", "item", "tolist"))
_MUTATING_NUMPY = frozenset(("copyto", "put", "place", "putmask", "fill_diagonal",
                             "put_along_axis", "at"))
_PURE_BUILTINS = frozenset(("min", "max", "abs", "float", "int", "len", "range", "round",
                            "sum", "bool", "complex"))


class Sinks:
    """A body's sinks, in the body's order: the names their Python parts rebind or
    change (`targets`, first seen first), the target of each (`at`, positions in
    targets), and the functions running their Python parts (`fns`, set by the rewrite:
    fn(target, value) -> target)."""

    def __init__(self, index, targets, at, lists, passed):
        self.index = index
        self.targets = targets
        self.at = at
        self.count = len(at)
        self.lists = lists      # targets appended to (lists at run time, checked)
        self.passed = passed    # sink -> the parameter it hands on as it came in
        self.fns = None

    def step(self, k, targets, value):
        j = self.at[k]
        targets[j] = self.fns[k](targets[j], value)
        return targets

    def run(self, targets, values):
        for k, v in enumerate(values):
            self.step(k, targets, v)
        return targets


def extract(body, index, locals_, var=None, also_read=()):
    """(body with each sink's graph part left in place, [(target, the Python part)] per
    sink, Sinks), or None when the body has no sink. `also_read`: names read elsewhere
    in the loop (a while loop's condition), which no sink may take."""
    found = []      # (statement position, target, graph part)
    for k, st in enumerate(body):
        got = _sink(st)
        # the Python part calls int/float/min/max: not where the function has its own
        if got is not None and got[0] in locals_ and got[0] != var and \
                _builtin_called(st) not in locals_ and \
                not isinstance(got[1], (ast.Tuple, ast.List, ast.Set, ast.Dict)):
            found.append((k, got[0], got[1]))
    while True:
        sink_at = {k for k, _, _ in found}
        # what the rest of the body reads or binds, and what every graph part reads
        taken = set(also_read)
        for k, st in enumerate(body):
            taken |= _names(st) if k not in sink_at else set()
        for _, _, part in found:
            taken |= _names(part)
        kept = [(k, t, part) for k, t, part in found if t not in taken]
        sink_at = {k for k, _, _ in kept}
        # a Python part that may raise (int(nan), max of an array) runs late only where
        # nothing after it could have an effect that the raise would have prevented
        kept = [(k, t, part) for k, t, part in kept
                if not _may_raise(body[k]) or
                all(j in sink_at or _quiet(body[j]) for j in range(k + 1, len(body)))]
        if kept == found:
            break
        found = kept
    if not found:
        return None
    targets = list(dict.fromkeys(t for _, t, _ in found))
    by_k = {k: (t, part) for k, t, part in found}
    new_body, python, passed, bound = [], [], {}, set()
    for k, st in enumerate(body):
        if k not in by_k:
            new_body.append(st)
            bound.update(n.id for n in ast.walk(st) if isinstance(n, ast.Name) and
                         not isinstance(n.ctx, ast.Load))
            continue
        t, part = by_k[k]
        name = f"__npc_s{index}_{len(python)}"
        if isinstance(part, ast.Name) and part.id not in bound:
            passed[len(python)] = part.id    # an argument of the body, as it came in
        assign = ast.Assign(targets=[ast.Name(name, ast.Store())], value=part,
                            type_comment=None)
        new_body.append(ast.fix_missing_locations(ast.copy_location(assign, st)))
        python.append((t, _with_value(st, part, name),
                       ast.copy_location(ast.Return(ast.Name(t, ast.Load())), st)))
    lists = {t for k, t, _ in found if isinstance(body[k], ast.Expr)}
    sinks = Sinks(index, targets, [targets.index(t) for _, t, _ in found], lists, passed)
    return new_body, python, sinks


def value_names(index, sinks):
    return [f"__npc_s{index}_{k}" for k in range(sinks.count)]


def _sink(st):
    """(target name, graph part) of a statement of a sink's shape, else None."""
    if isinstance(st, ast.Expr) and isinstance(st.value, ast.Call):
        c = st.value
        if isinstance(c.func, ast.Attribute) and c.func.attr == "append" and \
                isinstance(c.func.value, ast.Name) and len(c.args) == 1 and \
                not c.keywords and not isinstance(c.args[0], ast.Starred):
            return c.func.value.id, _graph_part(c.args[0])
        return None
    if isinstance(st, ast.AugAssign) and isinstance(st.target, ast.Name):
        inner = _converted(st.value)
        return (st.target.id, inner) if inner is not None else None
    if isinstance(st, ast.Assign) and len(st.targets) == 1 and \
            isinstance(st.targets[0], ast.Name):
        name, c = st.targets[0].id, st.value
        if isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and \
                c.func.id in _PICKS and len(c.args) == 2 and not c.keywords and \
                not any(isinstance(a, ast.Starred) for a in c.args):
            a, b = c.args
            if isinstance(a, ast.Name) and a.id == name:
                return name, _graph_part(b)
            if isinstance(b, ast.Name) and b.id == name:
                return name, _graph_part(a)
    return None


def _builtin_called(st):
    """The builtin a sink's Python part calls by name (int, float, min, max), or None."""
    node = st.value.args[0] if isinstance(st, ast.Expr) else st.value
    return node.func.id if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
        and node.func.id in _CONVERSIONS + _PICKS else None


def _converted(node):
    """The argument of int(X) or float(X), else None."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
            node.func.id in _CONVERSIONS and len(node.args) == 1 and not node.keywords and \
            not isinstance(node.args[0], ast.Starred):
        return node.args[0]
    return None


def _graph_part(node):
    """What the body computes for a value: X of int(X) or float(X) (the conversion runs
    in Python), else the value itself."""
    inner = _converted(node)
    return inner if inner is not None else node


def _may_raise(st):
    """Can the Python part raise? list.append cannot; int(), float(), max() and
    augmented arithmetic can."""
    return not (isinstance(st, ast.Expr) and _converted(st.value.args[0]) is None)


def _with_value(st, part, name):
    """The statement with its graph part read from `name` (the Python part)."""
    memo = {}
    st = copy.deepcopy(st, memo)
    mine = memo[id(part)]

    class Swap(ast.NodeTransformer):
        def visit(self, node):
            if node is mine:
                return ast.copy_location(ast.Name(name, ast.Load()), node)
            return super().visit(node)
    return ast.fix_missing_locations(Swap().visit(st))


def _names(node):
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _quiet(st):
    """Does the statement only bind plain names, from calls that change nothing?"""
    if not isinstance(st, ast.Assign):
        return False
    for t in st.targets:
        elts = t.elts if isinstance(t, (ast.Tuple, ast.List)) else [t]
        if not all(isinstance(e, ast.Name) for e in elts):
            return False
    for n in ast.walk(st.value):
        if isinstance(n, ast.Call):
            if any(k.arg == "out" or k.arg is None for k in n.keywords):
                return False
            f = n.func
            if isinstance(f, ast.Name):
                if f.id not in _PURE_BUILTINS:
                    return False
            elif isinstance(f, ast.Attribute):
                root = f.value
                if isinstance(root, ast.Name) and root.id in ("np", "numpy"):
                    if f.attr in _MUTATING_NUMPY:
                        return False
                elif f.attr not in _PURE_METHODS:
                    return False
            else:
                return False
        elif isinstance(n, (ast.NamedExpr, ast.Lambda, ast.Yield, ast.YieldFrom, ast.Await)):
            return False
    return True


# ----- at run time ---------------------------------------------------------------------

_NUMBERS = (int, float, complex, bool)


class ByIdentity:
    """The surrounding trace's lazy array of each concrete value a loop took over, found by
    the value's identity. It holds the values: an id alone outlived its object (the
    carried count a body replaced was freed, the loop's final count took its address,
    and the lazy of the first iteration's count came back for it: monte_carlo_pi gave
    pi / 20, now and then)."""

    __slots__ = ("_by_id",)

    def __init__(self, pairs=()):
        self._by_id = {id(v): (v, lz) for v, lz in pairs}

    def get(self, v, default=None):
        got = self._by_id.get(id(v))
        return got[1] if got is not None and got[0] is v else default


class Fed:
    """One run of a loop's sinks: the targets' values (the caller's list itself, a
    counter), moved on by each iteration's values in Python."""

    __slots__ = ("sinks", "targets", "lazies", "codes")

    def __init__(self, sinks, targets):
        self.sinks = sinks
        self.targets = targets
        self.lazies = ByIdentity()  # concrete array -> the surrounding trace's lazy array
        self.codes = ()     # the body functions whose frames an error may come from

    def take(self, out, scalar_names=()):
        """The body's values without the sinks' (whose Python part runs here)."""
        sinks = self.sinks
        if sinks is None:
            return out
        k = sinks.count
        values = [self.lazies.get(v, v) for v in out[-k:]]
        for i, name in sinks.passed.items():
            v = values[i]
            # a carried NumPy scalar goes into the body as a 0-d array: a scalar again
            if name in scalar_names and type(v) is np.ndarray and v.ndim == 0:
                values[i] = v[()]
        sinks.run(self.targets, values)
        return out[:-k]

    def after_error(self, exc, fn):
        """An iteration raised: what its sinks had computed before the error still goes
        to Python (eager NumPy had appended it), read from the body's frame."""
        sinks = self.sinks
        if sinks is None or not isinstance(exc, Exception):
            return
        tb = exc.__traceback__
        while tb is not None and tb.tb_frame.f_code is not fn.__code__:
            tb = tb.tb_next
        if tb is None:
            return
        local = tb.tb_frame.f_locals
        names = value_names(sinks.index, sinks)
        if not any(n in local for n in names):
            return
        from ..trace.lazy_array import concretize
        try:
            done = [concretize(local[n]) if n in local else None for n in names]
        except Exception:   # a value the failed trace never computed
            return
        # the sinks whose value was made ran, in order; the rest not (their graph part
        # comes before their Python part: the first missing one ends them)
        count = next((k for k, n in enumerate(names) if n not in local), len(names))
        for k in range(count):
            sinks.step(k, self.targets, done[k])

    def result(self):
        return tuple(self.targets)


def feed(sinks, args):
    """(the loop's values, Fed) for a run of a loop, or (None, None) where a sink's
    target is not a list (append) or a number: its Python part could do anything then."""
    if sinks is None:
        return args, Fed(None, [])
    n = len(sinks.targets)
    values, targets = args[:-n], list(args[-n:])
    from ..trace.lazy_array import LazyArray
    for t, v in zip(sinks.targets, targets):
        if t in sinks.lists:
            if type(v) is not list:
                return None, None
        elif not (type(v) in _NUMBERS or isinstance(v, np.generic) or
                  (type(v) is LazyArray and v._scalar)):
            return None, None
    return values, Fed(sinks, targets)
