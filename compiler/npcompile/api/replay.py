"""Replay: a jitted call whose arguments look exactly like those of a call watched before
(api/purity.py) runs that call's compiled program on the new arguments, without running
the Python body again. This is what makes a cached call cost microseconds: no tracing,
no graph key, no flush.

A plan is made from one traced call that had exactly one graph, compiled, no graph
break, and a body api/purity.py found free of effects the graph does not record. The
plan maps the graph's leaves to argument positions, the graph outputs written back
into arguments (in-place updates), and the returned structure to outputs, arguments
and constants. It is keyed by everything the trace could have depended on in the
arguments: array types, dtypes, shapes, strides, and the values of scalar arguments.
Before running, its guards are checked: the globals and closure variables the body
read are the same objects."""
import math
import types
import weakref

import numpy as np

from ..graph import calls, number_inputs
from ..trace.lazy_array import LazyArray
from ..trace.overlap import overlaps
from ..trace.steps import GRAPH
from ..dtypes import TRACED_MEMO, dtype_key, traced_dtype
from ..trace_core import core
from .purity import MISSING, closure_guards, defaults_refusal, stable_value

_EXACT = (int, bool, str, complex, bytes, type(None))


def arg_key(args, kwargs):
    """A hashable description of the arguments (None when one cannot be described: the
    call is then traced) and the flat list of argument values a plan indexes."""
    if _native_key is not None and not kwargs and type(args) is tuple:
        key = _native_key(args)
        return (key, args) if key is not None else (None, None)
    return python_arg_key(args, kwargs)


def python_arg_key(args, kwargs):
    """arg_key, written in Python (kwargs, or no C core)."""
    key = []
    for a in args:
        k = _key(a)
        if k is None:
            return None, None
        key.append(k)
    if not kwargs:
        return tuple(key), args
    values = list(args)
    for name in sorted(kwargs):
        v = kwargs[name]
        k = _key(v)
        if k is None:
            return None, None
        key.append((name, k))
        values.append(v)
    return tuple(key), values


def choice_key(args, kwargs):
    """A description of the arguments for choosing a path (api/path_choice.py), also
    where arg_key has none: a list, a string array, an object stands for its type and
    size. Calls alike in it are alike in cost, which is all the choice compares; a
    function handed `[0.9, 0.1]` (no replay key) was traced to the op budget at every
    call, 150x slower than NumPy, because no path was ever chosen for it."""
    key, _ = arg_key(args, kwargs)
    if key is not None:
        return key
    return ("coarse",) + tuple(_coarse(a, 0) for a in args) + \
        tuple((name, _coarse(kwargs[name], 0)) for name in sorted(kwargs or ()))


def _coarse(a, depth):
    t = type(a)
    if isinstance(a, np.ndarray) or t.__name__ == "DeviceArray":
        return (t, a.dtype.str, a.shape)
    if t in (list, tuple) and depth < 2:
        return (t, len(a)) + tuple(_coarse(x, depth + 1) for x in a[:4])
    if t in (list, tuple, dict, set):
        return (t, len(a))
    return (t,)


def _key(a):
    t = type(a)
    if t is np.ndarray:
        dt = a.dtype
        return (dtype_key(dt), a.shape, a.strides) if traced_dtype(dt) else None
    if t.__name__ == "DeviceArray" and t.__module__.endswith("device_array"):
        dt = a.dtype
        return (t, dtype_key(dt), a.shape, a.strides) if traced_dtype(dt) else None
    return _value_key(a)


# the tracer's C core computes the same key for positional arguments, five times faster
# (every jitted call needs one; trace_core/ArgKey.cpp), and asks _key for any argument
# that is not an array, a float, an int, a bool or None
_native_key = None
if core is not None and hasattr(core, "arg_key"):
    core.configure_arg_key({"ndarray": np.ndarray, "traced": TRACED_MEMO,
                            "traced_fn": traced_dtype, "slow_key": _key})
    _native_key = core.arg_key


def _value_key(a):
    """Scalars and tuples of them, by value. Arrays inside a tuple are not traced (only
    direct arguments are): their values could steer the body unseen, so no key."""
    t = type(a)
    if t is float or isinstance(a, np.floating):
        v = float(a)
        if v != v:
            return None
        # 0.0 == -0.0 as keys, but not as constants (1 / x)
        return (t, v) if v != 0.0 else (t, v, math.copysign(1.0, v))
    if t in _EXACT:
        return (t, a)
    if t is tuple:
        parts = tuple(_value_key(x) for x in a)
        return None if None in parts else (t, parts)
    if isinstance(a, np.generic):
        v = a.item()
        return (t, v) if v == v else None
    if isinstance(a, np.dtype) or (isinstance(a, type) and a.__module__ in ("builtins", "numpy")):
        return (t, a)
    if t is types.FunctionType:
        return _function_key(a, 0)
    if isinstance(a, np.random.Generator):
        # by its type alone: a plan draws from whichever generator it is handed (its
        # draws are recorded by position, not by identity), so a new generator per
        # call shares the plan. Any other use of it refuses replay (api/purity.py).
        return (t,)
    return None


def _function_key(fn, depth):
    """A Python function handed in (a helper defined inside the jitted function, which a
    loop body is given as an argument: `u = u + dt * lap(u)`) by what its trace depends
    on: its code, its globals (each read is guarded by the watch), and its closure and
    defaults by value. A fresh closure per outer call then keys alike, and its body
    replays; a closure over an array or an object has no key (traced every time)."""
    if depth > 3:
        return None
    parts = [fn.__code__, id(fn.__globals__)]
    cells = []
    for cell in fn.__closure__ or ():
        try:
            cells.append(cell.cell_contents)
        except ValueError:
            return None
    kw = fn.__kwdefaults__ or {}
    for v in cells + list(fn.__defaults__ or ()) + [kw[k] for k in sorted(kw)]:
        k = _function_key(v, depth + 1) if type(v) is types.FunctionType else _value_key(v)
        if k is None:
            return None
        parts.append(k)
    return (types.FunctionType, tuple(parts), tuple(sorted(kw)))


# every plan alive: reset() takes their programs (a plan of an older generation never
# runs again), so that a function still held keeps no machine code of before the reset
_PLANS = weakref.WeakSet()


def drop_programs():
    for plan in list(_PLANS):
        plan.program = None


class Plan:
    __slots__ = ("program", "leaf_src", "writebacks", "template", "globals",
                 "cells", "code", "defaults", "kwdefaults", "generation", "arrays", "written",
                 "draws", "overlap_positions", "consts", "n_values", "__weakref__")

    def holds(self, fn, generation):
        """Are the guards on what the body read (besides its arguments) still true?"""
        if generation != self.generation or fn.__code__ is not self.code:
            return False
        for d, name, v in self.globals:
            if d.get(name, MISSING) is not v:
                return False
        for cell, v in self.cells:
            try:
                if cell.cell_contents is not v:
                    return False
            except ValueError:
                return False
        if fn.__defaults__ is not self.defaults:
            return False
        kw = fn.__kwdefaults__
        if self.kwdefaults is not None:
            if kw is None or len(kw) != len(self.kwdefaults) or \
                    any(kw.get(k, MISSING) is not v for k, v in self.kwdefaults):
                return False
        elif kw:
            return False
        return True

    def run(self, values, checked=False):
        """The call's result, or raises (the caller then traces the call instead).
        checked: these very arrays were found not to overlap before (a loop handing
        its body the same arrays at every iteration)."""
        if self.writebacks and not checked and _overlap(values, self.arrays, self.written):
            raise _NotNow()
        if self.consts:
            values = list(values) + self.consts
        if self.draws:
            # the call's random draws, again and in its order, before its graph runs
            # (nothing in the graph touches a generator: the order is the Python's)
            drawn = [fn(*args, **kwargs) if at is None else fn(values[at], *args, **kwargs)
                     for fn, at, args, kwargs in self.draws]
            leaves = [values[i] if i >= 0 else drawn[-1 - i] for i in self.leaf_src]
        else:
            leaves = [values[i] for i in self.leaf_src]
        outs = self.program.run_values(leaves)
        for oi, ai in self.writebacks:
            v, target = outs[oi], values[ai]
            if v is not target:
                if type(v) is np.ndarray and v.shape == target.shape and \
                        type(target) is np.ndarray:
                    target[...] = v     # an unsafe cast too, without copyto's dispatch
                else:
                    np.copyto(target, v, casting="unsafe")
        return build(self.template, outs, values)


def loop_feeds(plan, carry, extra=0):
    """How a loop body's plan runs as a C++ loop (backends/cpu.py run_loop): its
    (feeds, writes, collect, moves), or None where it cannot. The body returns its
    carried values as a tuple (carry: their argument positions, in order); each must be
    an output as it is (fed to that argument next time: feeds, pairs (output, argument
    position)), or an argument as it is (the same one: an array updated in place; another:
    a move, (from, to), a rotation of buffers). `extra` values returned after the carried
    ones (a body's sinks, which Python takes per iteration) must be outputs as they are:
    their output positions are `collect`. Random draws are made per run by the loop's
    views callable (loop_runner._with_draws); programs without run_loop (the GPU's) run
    one call per iteration."""
    if not hasattr(plan.program, "run_loop"):
        return None
    t = plan.template
    if t[0] != 3 or len(t[1]) != len(carry) + extra or None in carry:
        return None
    collect = []
    for item in t[1][len(carry):]:
        if item[0] != 0 or item[2]:
            return None
        collect.append(item[1])
    moved = _next_values(t[1], dict(enumerate(carry)))
    if moved is None:
        return None
    feeds, moves = moved
    return feeds, list(plan.writebacks), collect, moves


def _next_values(items, targets):
    """(feeds, moves) that make each argument position targets[k] the returned value
    items[k] at the next run: an output, or an argument as it is; None where one is
    anything else (a view of an output, a constant)."""
    feeds, moves = [], []
    for k, pos in targets.items():
        item = items[k]
        if item[0] not in (0, 1) or item[2]:
            return None
        if item[0] == 0:
            feeds.append((item[1], pos))
        elif item[1] != pos:
            moves.append((item[1], pos))
    return feeds, moves


def loop_until(plan, next_of):
    """How a loop body's plan runs as a C++ loop whose Python part (a while condition,
    an exit test) runs after every run on the values the body returned: (feeds, writes,
    collect, sources, moves), or None where it cannot. next_of: {argument position:
    index of the returned value that is that argument at the next run}. sources: per
    returned value, (0, k) the k-th collected output, (1, p) argument p as the run saw
    it, or (2, v) the constant v."""
    if not hasattr(plan.program, "run_loop"):
        return None
    t = plan.template
    if t[0] != 3:
        return None
    collect, sources = [], []
    for item in t[1]:
        if item[0] == 2:
            sources.append((2, item[1]))
        elif item[0] in (0, 1) and not item[2]:
            sources.append((0, len(collect)) if item[0] == 0 else (1, item[1]))
            if item[0] == 0:
                collect.append(item[1])
        else:
            return None     # a view of an output, a container: built per run in Python
    moved = _next_values(t[1], {k: pos for pos, k in next_of.items()})
    if moved is None:
        return None
    feeds, moves = moved
    return feeds, list(plan.writebacks), collect, sources, moves


class _NotNow(Exception):
    """This call cannot replay (aliased arguments with in-place writes): trace it."""


def build(t, outs, values):
    kind = t[0]
    if kind == 0:   # a graph output seen through a chain of views
        v = outs[t[1]]
        return calls.apply_chain(v, t[2]) if t[2] else v
    if kind == 1:   # an argument (or a view of it)
        v = values[t[1]]
        return calls.apply_chain(v, t[2]) if t[2] else v
    if kind == 2:
        return t[1]
    if kind == 6:   # a Python number the graph computed
        return t[1](build(t[2], outs, values))
    items = [build(x, outs, values) for x in t[1]]
    if kind == 3:
        return tuple(items)
    if kind == 4:
        return items
    return dict(zip(t[2], items))


def make_plan(fn, tracer, result, watch, generation, steps=None):
    """A Plan from one watched, traced call, or a refusal in words. steps: where a call
    with graph breaks or several graphs may make a plan of steps, what makes it
    (api/step_plan.make_step_plan)."""
    values = watch.values
    if watch.refusal:
        return None if watch.transient else watch.refusal
    read = tracer.value_reads
    if read and not (steps is not None and read == tracer.recorded_reads):
        return f"it reads array values in Python ({tracer.value_read_reason})"
    # (a step other than a graph: an eager call, a read, a loop run on its own)
    several = bool(tracer.breaks) or len(tracer.runs) != 1 or bool(read) or \
        any(s[0] != GRAPH for s in tracer.steps)
    if several:
        if not tracer.runs and not tracer.steps:
            return "the call computed nothing"
        if steps is None or tracer.unrecorded is not None:
            if tracer.breaks:
                return f"the call had {len(tracer.breaks)} graph break(s)" + (
                    f" ({tracer.unrecorded})" if tracer.unrecorded else "")
            return f"the call ran {len(tracer.runs)} graphs" if len(tracer.runs) != 1 else \
                "it ran code outside its graph"
    else:
        entry, leaves, outputs, compiled = tracer.runs[0]
        if compiled is not True:    # (a graph of views kept as its calls: steps only)
            return "its graph did not run compiled"
    cells = closure_guards(fn)
    if isinstance(cells, str):
        return cells
    why = defaults_refusal(fn)
    if why:
        return why
    by_value = {}
    for i, v in enumerate(values):
        if id(v) in by_value and not isinstance(v, _EXACT + (float, tuple)):
            return None  # one array passed twice: which leaf is which is ambiguous
        by_value[id(v)] = i
    if several:
        plan = steps(tracer, result, values, by_value)
        return plan if isinstance(plan, str) else guarded(plan, fn, watch, cells, generation)
    draws = _draws(tracer, by_value)
    if isinstance(draws, str):
        return draws
    drawn = {id(d.value): -1 - k for k, d in enumerate(tracer.draws)}
    leaf_src, consts = [], []
    for leaf in leaves:
        i = by_value.get(id(leaf.value))
        if i is None:
            i = drawn.get(id(leaf.value))
        if i is None:
            i = const_source(tracer, leaf, values, consts)
        if i is None:
            return "it reads an array that is not one of its arguments"
        leaf_src.append(i)
    out_pos = {id(o): i for i, o in enumerate(outputs)}
    writebacks = []
    for node, target in tracer.writebacks:
        oi, ai = out_pos.get(id(node)), by_value.get(id(target))
        if oi is None or ai is None:
            return "it writes into an array that is not one of its arguments"
        writebacks.append((oi, ai))
    arrays = sorted({i for i in leaf_src if 0 <= i < len(values)})   # the arguments read
    written = sorted({ai for _, ai in writebacks})
    if writebacks and _overlap(values, arrays, written):
        return None  # aliased arguments: no plan from this call, and no verdict either
    template = template_of(result, out_pos, by_value)
    if isinstance(template, str):
        return template
    plan = Plan()
    plan.program = entry.compiled
    plan.leaf_src = leaf_src
    plan.writebacks = writebacks
    plan.template = template
    guarded(plan, fn, watch, cells, generation)
    plan.arrays = arrays
    plan.written = written
    plan.overlap_positions = sorted(set(arrays) | set(written))
    plan.draws = draws
    plan.consts = consts
    plan.n_values = len(values)
    return plan


def guarded(plan, fn, watch, cells, generation):
    """The plan with the guards on what the body read besides its arguments."""
    _PLANS.add(plan)
    plan.globals = watch.guards()
    plan.cells = cells
    plan.code = fn.__code__
    plan.defaults = fn.__defaults__
    kw = fn.__kwdefaults__
    plan.kwdefaults = tuple(kw.items()) if kw else None
    plan.generation = generation
    return plan


def const_source(tracer, leaf, values, consts):
    """A leaf made by the call from Python values (a number made an input,
    graph/number_inputs.py): the same for every call with this key, kept in the plan
    after the arguments (`values + consts`): its position there; None for another."""
    if leaf.label == number_inputs.LABEL or _made_in_call(tracer, leaf.value, values):
        consts.append(tracer.value_as_read(leaf))   # (not as Python left it)
        return len(values) + len(consts) - 1
    return None


# the largest array a plan keeps as a constant: a literal matrix or a mask is small;
# anything larger is better handed in as an argument
MAX_CONSTANT_ELEMENTS = 1 << 16
_RANDOM = (np.random.Generator, np.random.BitGenerator, np.random.RandomState)


def _made_in_call(tracer, value, values):
    """Was this leaf made during the call from what its key and guards fix? Arrays the
    trace made (tracer.made), and small NumPy arrays the Python body made with NumPy
    directly (`np.array([[1, dt], [0, 1]])`, which no trace rule sees): the watch
    refuses a call reading an array from a global, a closure or a default (mutable),
    value reads have their own record, and arrays inside containers have no key, so
    what is left was computed from the key's scalars and Python constants. Not in a
    call that draws random numbers: a draw the trace did not record (a generator's
    method it has no rule for) would be replayed as a constant."""
    if tracer.made.get(id(value)) is value:
        return True
    # (a view of an argument, settled into a leaf by a flush before it, `x = A[:, 0]`
    # then `if x.any():` then `x += 1`, is that call's memory, not a constant: kept as
    # one, a replay read the first call's column and wrote it back into the new A)
    return type(value) is np.ndarray and value.size <= MAX_CONSTANT_ELEMENTS and \
        not tracer.draws and not any(isinstance(v, _RANDOM) for v in values) and \
        not any(type(v) is np.ndarray and np.may_share_memory(value, v) for v in values)


def _draws(tracer, by_value):
    """The call's random draws as a replay makes them, [(fn, argument position of the
    generator or None, args, kwargs)], or why they cannot be made again."""
    out = []
    for d in tracer.draws:
        if not d.replayable:
            return "it draws random numbers with array arguments, or reads a draw in Python"
        at = None
        if d.source is not None:
            at = by_value.get(id(d.source))
            if at is None:
                return "it draws random numbers from a generator that is not its argument"
        out.append((d.fn, at, d.args, dict(d.kwargs)))
    if out and tracer.options.get("device") == "cuda":
        return "it draws random numbers (a replay on the GPU does not draw)"
    return out


def template_of(obj, out_pos, by_value, depth=0):
    """How to rebuild the returned value from a run's outputs, or why it cannot be."""
    t = type(obj)
    if t is LazyArray:
        s = obj._scalar
        if s is not True and s is not False:    # a Python number: its type again
            inner = template_of(LazyArray(obj._st, obj._chain, obj._n, True), out_pos,
                                by_value, depth)
            return inner if isinstance(inner, str) else (6, s.type, inner)
        st = obj._st
        if st.target is not None:
            i = by_value.get(id(st.target))
            return (1, i, tuple(obj._chain)) if i is not None else \
                "it returns an array that is not one of its arguments"
        i = out_pos.get(id(st.base))
        return (0, i, tuple(obj._chain)) if i is not None else \
            "it returns a view NumPy had to copy"
    if depth > 8:
        return "it returns a deeply nested structure"
    if t in (tuple, list):
        items = []
        for x in obj:
            got = template_of(x, out_pos, by_value, depth + 1)
            if isinstance(got, str):
                return got
            items.append(got)
        return (3 if t is tuple else 4, items)
    if t is dict:
        for k in obj:
            why = stable_value(k)
            if why is not None:     # a key the call computed (`{a.sum(): 1}`) is data
                return f"it returns a dict whose keys are {why}"
        items = []
        for x in obj.values():
            got = template_of(x, out_pos, by_value, depth + 1)
            if isinstance(got, str):
                return got
            items.append(got)
        return (5, items, list(obj.keys()))
    why = stable_value(obj)
    return (2, obj) if why is None else f"it returns {why}"


def _overlap(values, arrays, written):
    """Does an argument the call writes share memory with another it reads or writes?
    (Two inputs only read may overlap: a loop body's views y[t - 1] and x[t, ...] are
    checked at every iteration, so the pairs are kept to those that matter.)"""
    for w in written:
        for i in arrays:
            if i != w and overlaps(values[w], values[i]):
                return True
        for i in written:
            if i > w and overlaps(values[w], values[i]):
                return True
    return False

