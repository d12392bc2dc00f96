"""Replay of a call with graph breaks: a plan of steps (api/replay.py makes one where the
call broke the graph only at eager NumPy calls and value reads, trace/steps.py).

A function with one `np.unique`, one `x[mask]` or one `if err > tol:` ran as several
graphs; no replay plan took a call of more than one graph, so every later call traced
its Python again (0.2-2 ms a call, more than NumPy spent on small arrays) and the path
choice kept plain NumPy. A StepPlan runs the call's steps in order on the new
arguments:

* each graph's compiled program, on the arguments, the outputs of earlier steps and
  the plan's constants, its writes into arguments landing as in the traced call;
* each eager NumPy call again, on the values it reads now; what it returns must have the
  recorded shapes and dtypes (the graphs after it were compiled for those: a mask
  that selects another count is a new trace), and its numbers the recorded values;
  a loop that ran compiled on its own (a scalar nest, a body compiled once, a while
  loop: api/loop_step.py) is such a call too, and so is a graph of views kept as its
  calls (graph/recorded.py);
* each value Python read must read the same (type and bits): the Python body is a
  function of the arguments' key, its guarded globals and the values it read, so the
  same values mean the same path through it and the same graphs.

Where a check fails, or a step raises, the arguments the plan wrote get their values of
before the call back, and the call is traced as written (which raises NumPy's error, or
takes the other branch). A plan whose only steps are graphs never needs that."""
import numpy as np

from ..graph import calls
from ..trace.steps import EAGER, GRAPH, READ, draw_step, same_value
from .replay import Plan, _NotNow, _overlap, build, const_source, template_of

_REF, _ARRAY, _CONST, _SEQ = range(4)


class _Mismatch(Exception):
    """A value read or a result's shape differs from the traced call's."""


class StepPlan(Plan):
    __slots__ = ("steps", "saved", "programs")

    def run(self, values, checked=False):
        if self.program is None:      # programs dropped (npcompile.reset)
            raise _NotNow()
        if self.written and not checked and _overlap(values, self.arrays, self.written):
            raise _NotNow()
        pool = list(values)
        pool += self.consts
        saved = [(values[i], values[i].copy()) for i in self.saved]
        try:
            for step in self.steps:
                kind = step[0]
                if kind == GRAPH:
                    pool += step[1].run_values([pool[i] for i in step[2]])
                    for oi, ti in step[3]:
                        v, target = pool[oi], pool[ti]
                        if v is not target:
                            np.copyto(target, v, casting="unsafe")
                elif kind == EAGER:
                    got = step[1](*_made(step[2], pool), **_made(step[3], pool))
                    _take(step[4], got, pool)
                elif not same_value(_read(pool, step[1], step[2], step[3]), step[4]):
                    raise _Mismatch()
        except BaseException:
            for target, before in saved:
                target[...] = before
            raise
        return build(self.template, pool, pool)


class _Programs:
    """The plan's programs where jit.py reads one plan's program: its graph id, and
    exec/engine.record_kernel_times, which records each program's kernel times."""

    __slots__ = ("programs",)

    def __init__(self, programs):
        self.programs = programs

    @property
    def graph_id(self):
        return self.programs[0].graph_id if self.programs else -1


def make_step_plan(tracer, result, values, by_value):
    """A StepPlan from a traced call of several steps, or why not in words."""
    if any(not d.replayable or d.source is None for d in tracer.draws):
        return "it draws random numbers and breaks the graph"
    if any(id(d.source) in by_value for d in tracer.draws):
        return "it draws random numbers from a generator it was handed, and breaks the graph"
    if tracer.options.get("device", "cpu") != "cpu":
        return "it breaks the graph on the GPU"
    too_many = tracer.too_many_steps()
    if too_many is not None:
        return f"it took {too_many}"
    n = len(values)
    consts, steps, programs = [], [], []
    dyn = {}          # id(array) -> k: the k-th value the steps made (tagged -1 - k)
    nodes = {}        # id(graph output node) -> k
    made = [0]
    read, written = set(), set()
    first_write = None    # the step that first writes into an argument

    def source(array):
        i = by_value.get(id(array))
        if i is not None and values[i] is array:
            return i
        k = dyn.get(id(array))
        return None if k is None else -1 - k

    def new(array):
        k = made[0]
        made[0] += 1
        dyn[id(array)] = k
        return -1 - k

    # the steps made after the function returned (a returned x[mask] made compact):
    # no Python of the user's saw what they made
    late_steps = {id(s) for s in tracer.steps[tracer.returned_at:]} \
        if tracer.returned_at is not None else set()
    late = set()      # their places in `steps`
    for step in _with_draws(tracer.steps, tracer.draws):
        kind = step[0]
        if kind == GRAPH:
            if step[1] is None:
                return "a graph of the call ran op by op"
            entry, leaves, outputs, compiled = tracer.runs[step[1]]
            if not compiled:
                return "a graph of the call did not run compiled"
            program = entry.compiled if compiled is True else compiled
            srcs = []
            for leaf in leaves:
                i = source(leaf.value)
                if i is None:
                    i = const_source(tracer, leaf, values, consts)
                if i is None:
                    return "it reads an array that is not one of its arguments"
                if 0 <= i < n:
                    read.add(i)
                srcs.append(i)
            for node in outputs:
                nodes[id(node)] = made[0]
                new(node.value)
            wbs = []
            for node, target in tracer.writebacks[step[2]:step[3]]:
                k, ti = nodes.get(id(node)), source(target)
                if k is None or ti is None:
                    return "it writes into an array that is not one of its arguments"
                if 0 <= ti < n:
                    written.add(ti)
                    if first_write is None:
                        first_write = len(steps)
                wbs.append((-1 - k, ti))
            programs.append(program)
            steps.append([GRAPH, program, srcs, wbs])
        elif kind == EAGER:
            args, kwargs = _sources(step[2], source), _sources(step[3], source)
            if args is None or kwargs is None:
                return "a NumPy call at a break reads an array that is not one of its arguments"
            for target in step[5]:
                ti = source(target)
                if ti is None:
                    return "a loop run on its own writes into an array it cannot find again"
                if ti >= 0:
                    written.add(ti)
                    if first_write is None:
                        first_write = len(steps)
            taken = _assigned(step[4], new, source)
            if taken is None:
                return "a loop run on its own hands back an array it cannot find again"
            if id(step) in late_steps:
                late.add(len(steps))
            steps.append([EAGER, step[1], args, dict(kwargs[1]), taken])
        elif type(step[1]) is tuple:    # computed from concrete arrays where read
            recorded, leaf_values = step[1]
            srcs = [source(v) for v in leaf_values]
            if None in srcs:
                return "it reads a value computed from an array it cannot find again"
            steps.append([READ, (recorded, srcs), (), step[3], step[2]])
        else:
            seen = step[1]
            i = source(seen.array())
            if i is None:
                return "it reads a value out of an array it cannot find again"
            steps.append([READ, i, seen.chain, seen.scalar, step[2]])
    if not steps:
        return "the call computed nothing"
    base = n + len(consts)

    def at(i):
        return i if i >= 0 else base - 1 - i
    for st in steps:
        if st[0] == GRAPH:
            st[2] = [at(i) for i in st[2]]
            st[3] = [(at(o), at(t)) for o, t in st[3]]
        elif st[0] == EAGER:
            st[2] = _placed(st[2], at)
            st[3] = {k: _placed(v, at) for k, v in st[3].items()}
            st[4] = _same_placed(st[4], at)
        elif type(st[1]) is tuple:
            st[1] = (st[1][0], [at(i) for i in st[1][1]])
        else:
            st[1] = at(st[1])
    _free_shapes(steps, base, late)
    targets = dict(by_value)
    for aid, k in dyn.items():
        targets.setdefault(aid, base + k)
    template = template_of(result, {nid: base + k for nid, k in nodes.items()}, targets)
    if isinstance(template, str):
        return template
    plan = StepPlan()
    plan.steps = [tuple(s) for s in steps]
    plan.programs = programs
    plan.program = _Programs(programs)
    plan.template = template
    plan.consts = consts
    plan.n_values = n
    plan.leaf_src = []
    plan.writebacks = []
    plan.draws = []
    plan.arrays = sorted(read)
    plan.written = sorted(written)
    plan.overlap_positions = sorted(read | written)
    # the arguments a failed check must give back: those written before a later step
    # (a check, an eager call or a kernel that may raise) comes, or by a loop run on its
    # own, which may stop half-way itself (a nest puts back what it wrote; a body's
    # iterations do not)
    plan.saved = plan.written if first_write is not None and (
        first_write < len(steps) - 1 or steps[first_write][0] == EAGER) else []
    if plan.written and _overlap(values, plan.arrays, plan.written):
        return None
    return plan


def _free_shapes(steps, base, late):
    """An array that an eager call made after the function returned (`late`: a returned
    x[mask] made compact, trace/masked_select.materialize_all) may come out another
    shape in a replay, its dtype and rank still checked, where no graph or value read
    takes it: it is shaped by the data, and was a mismatch, so a call returning one was
    traced again at every call, 2.8x slower than NumPy (`y = x[x > 0]; return
    np.sqrt(y) * 2 + y.sum()`). Only there: the user's code saw no other step's array,
    whose shape (len(y) kept as a number) could have steered it unchecked. A length the
    code asked of a lazy selection is a number the graph computed, a read that is
    checked."""
    by_graphs = set()
    for st in steps:
        if st[0] == GRAPH:
            by_graphs.update(st[2])
        elif st[0] == READ:
            by_graphs.update(st[1][1] if type(st[1]) is tuple else (st[1],))
    for i in late:
        steps[i][4] = _freed(steps[i][4], base, by_graphs)


def _freed(spec, base, by_graphs):
    kind = spec[0]
    if kind == "array":
        return spec if base - 1 - spec[1] in by_graphs else \
            ("array", spec[1], len(spec[2]), spec[3])
    if kind in ("same", "value", "gen"):
        return spec
    return (kind, spec[1], [_freed(x, base, by_graphs) for x in spec[2]])


def _with_draws(steps, draws):
    """The call's steps with its random draws among them, each where the call drew it:
    a draw again, from the generator an earlier step made (default_rng(seed) in the
    call), draws NumPy's own stream."""
    at = 0
    for k, step in enumerate(steps):
        while at < len(draws) and draws[at].at_step <= k:
            yield draw_step(draws[at])
            at += 1
        yield step
    for d in draws[at:]:
        yield draw_step(d)


def _sources(frozen, source):
    """A frozen argument structure (trace/steps._freeze) with each array as its tagged
    source: (_REF, i, chain, scalar), (_ARRAY, i), (_CONST, v), (_SEQ, type, items), and
    ("d", [(keyword, item)]) for the keyword arguments; None where an array is not found."""
    kind = frozen[0]
    if kind == "ref":
        seen = frozen[1]
        i = source(seen.array())
        return None if i is None else (_REF, i, seen.chain, seen.scalar)
    if kind == "array":
        i = source(frozen[1])
        return None if i is None else (_ARRAY, i)
    if kind == "gen":       # a generator an earlier step made, never an argument
        i = source(frozen[1])
        return None if i is None or i >= 0 else (_ARRAY, i)
    if kind == "const":
        return (_CONST, frozen[1])
    items = []
    for x in frozen[1]:
        got = _sources(x[1] if kind == "dict" else x, source)
        if got is None:
            return None
        items.append((x[0], got) if kind == "dict" else got)
    if kind == "dict":
        return ("d", items)
    return (_SEQ, tuple if kind == "tuple" else list, items)


def _placed(s, at):
    """_sources' structure with its tagged positions made pool positions."""
    kind = s[0]
    if kind == _REF:
        return (_REF, at(s[1]), s[2], s[3])
    if kind == _ARRAY:
        return (_ARRAY, at(s[1]))
    if kind == _CONST:
        return s
    return (_SEQ, s[1], [_placed(x, at) for x in s[2]])


def _made(s, pool):
    """The value of a placed argument structure (args: a sequence; kwargs: a dict)."""
    if type(s) is dict:
        return {k: _value(v, pool) for k, v in s.items()}
    return _value(s, pool)


def _value(s, pool):
    kind = s[0]
    if kind == _REF:
        return _read(pool, s[1], s[2], s[3])
    if kind == _ARRAY:
        return pool[s[1]]
    if kind == _CONST:
        return s[1]
    return s[1](_value(x, pool) for x in s[2])


def _read(pool, i, chain, scalar):
    """What concretize() gives for a lazy array (trace/lazy_array.py _value); `i` a
    pool position, or (the calls that computed the value, the pool positions of the
    leaves they read: trace/steps.expression)."""
    if type(i) is tuple:
        v = i[0].run_values([pool[k] for k in i[1]])[0]
    else:
        v = pool[i]
        if chain:
            v = calls.apply_chain(v, chain)
    return v if scalar is True or scalar is False else scalar.type(v)


def _assigned(spec, new, source):
    """A recorded result (trace/steps._result) as a replay takes it apart: each array a
    new value of the steps (tagged position, shape, dtype), or an argument it must be
    again (tagged position); None where that argument is not found."""
    kind = spec[0]
    if kind == "array":
        a = spec[1]
        return ("array", new(a), a.shape, a.dtype)
    if kind == "gen":
        return ("gen", new(spec[1]))
    if kind == "same":
        i = source(spec[1])
        return None if i is None else ("same", i)
    if kind == "value":
        return spec
    items = [_assigned(x, new, source) for x in spec[2]]
    return None if None in items else (kind, spec[1], items)


def _same_placed(spec, at):
    kind = spec[0]
    if kind == "same":
        return ("same", at(spec[1]))
    if kind in ("array", "value", "gen"):
        return spec
    return (kind, spec[1], [_same_placed(x, at) for x in spec[2]])


def _take(spec, got, pool):
    """Put an eager call's result into the pool, checking it is as recorded."""
    kind = spec[0]
    if kind == "array":     # (a rank, not a shape: _free_shapes)
        if type(got) is not np.ndarray or got.dtype != spec[3] or (
                got.ndim != spec[2] if type(spec[2]) is int else got.shape != spec[2]):
            raise _Mismatch()
        pool.append(got)
    elif kind == "gen":
        if not isinstance(got, np.random.Generator):
            raise _Mismatch()
        pool.append(got)
    elif kind == "same":
        if got is not pool[spec[1]]:
            raise _Mismatch()
    elif kind == "value":
        if not same_value(got, spec[1]):
            raise _Mismatch()
    else:
        if type(got) is not spec[1] or len(got) != len(spec[2]):
            raise _Mismatch()
        for x, g in zip(spec[2], got):
            _take(x, g, pool)
