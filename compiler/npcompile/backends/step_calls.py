"""A NumPy step between kernels as a callable of the run's value list, made once per
program. Unrolled loops run thousands of such steps per call (a view, a small matmul,
an update per iteration): rebuilding each call's arguments from the recorded template
(graph/node.substitute, recursive) cost more than the NumPy work itself (triangular
solve of 300: 2,400 views and 600 matmuls per call, 3.6 us of Python per step)."""
from ..graph.node import Ref, contains, substitute


def has_ref(template):
    return contains(template, _is_ref)


def _is_ref(x):
    return type(x) is Ref


def step_call(fn, args, kwargs, inputs):
    """fn(*args, **kwargs) with each Ref replaced by vals[its graph position], as
    `call(vals)`. Flat argument lists (every Ref at the top level, the usual case) are
    read straight from vals; anything nested goes through substitute()."""
    if kwargs or any(type(a) is not Ref and has_ref(a) for a in args):
        def general(vals):
            ins = [vals[i] for i in inputs]
            return fn(*substitute(args, ins), **(substitute(kwargs, ins) if kwargs else {}))
        return general
    slots = [inputs[a.i] if type(a) is Ref else None for a in args]
    n = len(args)
    if n == 1 and slots[0] is not None:
        a = slots[0]
        return lambda vals: fn(vals[a])
    if n == 2:
        a, b = slots
        if a is not None and b is None:
            c = args[1]
            return lambda vals: fn(vals[a], c)
        if a is not None and b is not None:
            return lambda vals: fn(vals[a], vals[b])
    consts = list(args)
    refs = [(k, s) for k, s in enumerate(slots) if s is not None]

    def flat(vals):
        full = consts[:]
        for k, s in refs:
            full[k] = vals[s]
        return fn(*full)
    return flat


def numpy_errors(call):
    """call, whose exceptions are marked as NumPy's own (exec/engine.py raises them as
    they are). A step runs where eager NumPy runs it, after the steps before it: what
    they wrote into the caller's arrays is what NumPy wrote before its error. Run again
    on the reference path, those writes landed twice (`b[1:] -= b[:-1]` before a masked
    write that raises OverflowError)."""
    def run(vals):
        try:
            return call(vals)
        except Exception as e:
            e.npc_numpy_step = True
            raise
    return run
