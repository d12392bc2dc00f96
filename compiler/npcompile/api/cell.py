"""npcompile.run_cell: trace a block of code in a namespace (what %%npcompile runs)."""
import ast
import hashlib
import itertools
import linecache

from ..cell_names import cell_label
from ..exec.engine import ENGINE, SiteInfo
from ..records import SESSION
from ..trace.lazy_array import LazyArray
from ..trace.masked_select import Selected, materialize_all
from ..trace.tracer import Tracer, concretize, is_traceable
from . import dask_chunks, fp_errors, loop_rewrite
from .jit import Jitted, check_options, finish_after_error, loops_default
from .loop_runner import LoopRunner

_cell_ids = itertools.count(1)


class _Cell:
    """What a loop runner needs of its owner (api/loop_runner.py): name and options."""

    def __init__(self, options, name="<cell>"):
        self.options = options
        self._site_name = name


def _cell_name(filename):
    """The cell as reports name the code it runs: "In [4]" for the magic's cell 4
    (magics.py files it as <In [4]>), so that reports tell a notebook's cells apart."""
    return cell_label(filename) or "<cell>"


def _register_source(source, filename):
    lines = source.splitlines(keepends=True)
    linecache.cache[filename] = (len(source), None, lines, filename)


def _split_last_expr(tree):
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
        return tree, last
    return tree, None


def _restore(namespace):
    """Lazy arrays and selections bound in the namespace (also inside top-level lists,
    tuples and dicts) become plain NumPy values again."""
    _rebind(namespace, (LazyArray, Selected), lambda v: concretize(materialize_all(v)))


def _compact_selections(namespace):
    """Selections the cell leaves in its namespace (`y = x[x > 0]`) made NumPy's compact
    arrays as the graph's last steps, as a function's returned ones are (they were left
    as the tracer's own Selected objects, and `type(y)` was not ndarray)."""
    _rebind(namespace, (Selected,), materialize_all)


def _rebind(namespace, kinds, convert):
    """Each name bound to a value of these types, or to a top-level list, tuple or dict
    holding one, bound to convert(value)."""
    for name, v in list(namespace.items()):
        t = type(v)
        if t in kinds or (t in (list, tuple, dict) and any(
                type(x) in kinds for x in (v.values() if t is dict else v))):
            namespace[name] = convert(v)


def _raising(source, filename):
    """What makes the cell's floating-point errors NumPy's alone (api/fp_errors.py): the
    handling in force now, or an np.errstate/np.seterr that raises in its own code."""
    now = fp_errors.raising_now()
    if now is not None:
        return now, "in force at the cell"
    scope = fp_errors.raising_code(compile(source, filename, "exec"))
    return (scope, "in its code") if scope else None


def _as_plain_python(tree, last, namespace, filename, raising):
    """The cell run as plain Python and NumPy, its last expression's value returned; the
    reason is a fallback in the report."""
    what, where = raising
    SESSION.add("fallbacks", {"graph_id": -1, "function": _cell_name(filename),
                              "reason": fp_errors.reason(where, what)})
    exec(compile(tree, filename, "exec"), namespace)
    return eval(compile(last, filename, "eval"), namespace) if last is not None else None


def run_cell(source, namespace, *, device="cpu", fullgraph=False, dynamic=None, filename=None):
    """Run `source` in `namespace` with its NumPy arrays traced. Returns the value of the
    last expression (None if the cell ends in a statement)."""
    options = check_options(device, fullgraph, dynamic)
    digest = hashlib.sha1(source.encode()).hexdigest()[:12]
    filename = filename or f"<npcompile-cell-{next(_cell_ids)}>"
    _register_source(source, filename)
    tree, last = _split_last_expr(ast.parse(source, filename, "exec"))
    raising = _raising(source, filename)
    if raising is not None:     # NumPy's FloatingPointError is NumPy's alone
        return _as_plain_python(tree, last, namespace, filename, raising)
    name = _cell_name(filename)
    site = SiteInfo(("cell", digest), name, filename, 1)
    runner = None
    if loops_default():
        runner = loop_rewrite.rewrite_cell(tree, source, namespace,
                                           lambda sites: LoopRunner(sites, _Cell(options, name),
                                                                    Jitted),
                                           filename)
    body = compile(tree, filename, "exec")
    last = compile(last, filename, "eval") if last is not None else None
    tracer = Tracer(site, options, ENGINE)
    SESSION.add("traces", {"function": name, "filename": filename, "lineno": 1})
    try:
        return _run_traced(tracer, namespace, runner, body, last)
    finally:
        ENGINE.record_trace_end(tracer)


def _run_traced(tracer, namespace, runner, body, last):
    """run_cell's body, between its trace's start and end records."""
    dask_before = dask_chunks.dask_ids(namespace)
    with tracer:
        for var, v in list(namespace.items()):
            if not var.startswith("_") and is_traceable(v):
                namespace[var] = tracer.wrap_input(v, var)
        if runner is not None:
            namespace["__npc_loop__"] = runner
        try:
            exec(body, namespace)
            result = eval(last, namespace) if last is not None else None
        except BaseException as e:
            earlier = finish_after_error(tracer)
            _restore(namespace)
            if earlier is not None and isinstance(e, Exception):
                raise earlier from None
            raise
        finally:
            if runner is not None:   # the rewrite's own names leave with it
                for var in [k for k in namespace if k.startswith("__npc_")]:
                    del namespace[var]
        try:
            tracer.returned_at = len(tracer.steps)
            _compact_selections(namespace)
            result = materialize_all(result)
            tracer.flush()
        finally:
            _restore(namespace)
        result = concretize(result)
    # Dask arrays the cell made (Dask ran its NumPy calls on them): their chunks compiled
    result = dask_chunks.compile_new(namespace, dask_before, result)
    if tracer.budget_reason is not None:  # a cell's namespace changes as it runs: no restart
        # (the cell's name: the loop above once rebound `name` to a namespace variable's)
        SESSION.add("path_choices", {"function": tracer.site.function, "choice": "numpy",
                                     "budget": True,
                                     "reason": tracer.budget_reason + "; the rest of the "
                                     "cell ran uncompiled"})
    run_cell.last_tracer = tracer
    return result
