"""What a traced call did between its graphs, in order: the graphs it ran, the NumPy
calls it made eagerly at a graph break (`np.unique`, `x[mask]`, `np.linalg.eig`), and
the array values Python read at a break (`if err > tol`, `int(k)`). A call whose breaks
are all of these can be replayed (api/step_plan.py): its graphs run again, the eager
calls are made again on the new values, and each value Python read is read again and
must be what it was, since Python's path through the function, and so the graphs it
made, followed from it. A break of any other kind (a write into an array NumPy made, an
alias) leaves the call unreplayable, as before.

Each record holds the objects it names (the lazy arrays' storages, the eager results),
so identities stay unique while the tracer lives."""
import numpy as np

from ..dtypes import traced_dtype
from ..graph.recorded import Recorded
from .lazy_array import LazyArray

GRAPH, EAGER, READ = 0, 1, 2
# a call of more values read in Python than this is a loop of breaks on data: replaying
# it step by step gains nothing over NumPy, and its checks (each read must come out as
# it did) would rarely all hold
MAX_READS = 64
# and of more steps than this in all. Graphs and NumPy calls between the reads check
# nothing: a time loop whose body calls a helper with two loop nests (a Thomas
# solve per step: a graph and two nests a step, 75 steps) replays at 1.4 ms, where
# tracing it, as past 64 steps, took 7-16 ms against NumPy's 1.9
MAX_STEPS = 512


def too_many(steps, counted):
    """Why steps (a call's records so far) are more than a plan takes, or None. counted:
    [steps looked at, reads among them] carried between calls (steps only grow)."""
    if len(steps) > MAX_STEPS:
        return f"more than {MAX_STEPS} steps"
    if len(steps) > MAX_READS:
        for st in steps[counted[0]:]:
            counted[1] += st[0] == READ
        counted[0] = len(steps)
        if counted[1] > MAX_READS:
            return f"more than {MAX_READS} values read in Python"
    return None

# NumPy calls that write into an argument (a replay would write again, and a replay that
# stops half-way could not take it back), or draw from a generator's stream
_WRITERS = frozenset(("copyto", "place", "put", "putmask", "fill_diagonal", "put_along_axis",
                      "shuffle", "at", "fill", "sort", "partition", "resize", "setflags",
                      "itemset", "byteswap"))
_RANDOM = (np.random.Generator, np.random.BitGenerator, np.random.RandomState)
# values a read may hand Python that nothing can change in place
_VALUES = (int, float, complex, bool, str, bytes, type(None), np.generic)
# what a step may take as a constant argument: what Python values cannot change unseen
_CONSTANTS = (int, float, complex, bool, str, bytes, slice, type(None), type(Ellipsis),
              np.dtype, np.generic, type)


class Seen:
    """A lazy array as a step read it: its storage's user array (an argument, an eager
    result) or concrete base, the views from there, and what kind of value it is."""

    __slots__ = ("target", "base", "chain", "scalar")

    def __init__(self, lz):
        st = lz._st
        self.target = st.target
        self.base = st.base.value if st.target is None else None
        self.chain = tuple(lz._chain)
        self.scalar = lz._scalar

    def array(self):
        """The array the step found (target or base): what a plan looks up by identity."""
        return self.target if self.target is not None else self.base


def read_step(lz, value, expr=None):
    """Python read `value` out of lazy array `lz` at a break; `expr`: what computed it
    straight from concrete arrays (expression()), where nothing else holds it. None for
    a value that could change unseen: an array is kept as a copy (the value read may be
    the caller's own array, `float(t)` of a one-element argument, which the caller may
    write before the next call), anything but a number is not kept."""
    if type(value) is np.ndarray:
        value = value.copy()
    elif not isinstance(value, _VALUES):
        return None
    return (READ, Seen(lz) if expr is None else expr, value, lz._scalar)


def expression(order):
    """Nodes computed in order from concrete arrays (0-d arithmetic on elements, `err >
    tol` on a graph's result) as a replay computes them again: (their calls, kept
    (graph/recorded.py), the values of the leaves they read, in its `leaves` order)."""
    leaves, seen = [], set()
    for n in order:
        for i in n.inputs:
            if i.is_leaf and id(i) not in seen:
                seen.add(id(i))
                leaves.append(i)
    return Recorded(leaves, order, order[-1:]), [leaf.value for leaf in leaves]


def eager_step(fn, args, kwargs, cargs, ckwargs, result, writes=(), same=False):
    """The record of one eager NumPy call, or why it cannot be made again in words.
    writes: the arrays among its arguments it writes into, for a call that says so (a
    loop nest run compiled, api/native_loop.py); a NumPy function that writes is refused.
    same: it may hand back an argument itself (a loop's carried array, api/loop_step.py)."""
    name = getattr(fn, "__name__", "")
    if name in _WRITERS or (ckwargs and "out" in ckwargs):
        return f"{name} writes into an array"
    mod = getattr(fn, "__module__", "") or ""
    if mod.startswith("numpy.random") or isinstance(getattr(fn, "__self__", None), _RANDOM):
        return "a random draw"
    try:
        frozen_args = _freeze(args, cargs)
        frozen_kwargs = _freeze(kwargs or {}, ckwargs or {})
    except _Refused as e:
        return str(e)
    inputs = []
    _arrays(cargs, inputs)
    _arrays(ckwargs, inputs)
    got = _result(result, inputs, same)
    if isinstance(got, str):
        return got
    return (EAGER, fn, frozen_args, frozen_kwargs, got, tuple(writes))


def draw_step(draw):
    """A random draw (trace/random_rules.Draw, its arguments plain numbers) as the record
    of an eager call: its method called again on its generator, which a plan takes only
    where an earlier step made it (api/step_plan.py)."""
    args = (draw.source,) + tuple(draw.args)
    return (EAGER, draw.fn, _freeze(args, args), _freeze(dict(draw.kwargs), dict(draw.kwargs)),
            ("array", draw.value), ())


class _Refused(Exception):
    pass


def _freeze(orig, conc, depth=0):
    """An argument structure with each lazy array as a Seen ('ref'), each concrete array
    as itself ('array': it must be one the plan knows), constants as they are."""
    t = type(orig)
    if t is LazyArray:
        return ("ref", Seen(orig))
    if t is np.ndarray:
        return ("array", orig)
    if depth > 4:
        raise _Refused("a deeply nested argument")
    if t is tuple or t is list:
        return (t.__name__, [_freeze(o, c, depth + 1) for o, c in zip(orig, conc)])
    if t is dict:
        if depth:       # keyword arguments only: a dict inside an argument is refused
            raise _Refused("a dict inside an argument")
        return ("dict", [(k, _freeze(o, conc[k], depth + 1)) for k, o in orig.items()])
    if isinstance(orig, np.random.Generator):
        # one an earlier step made (default_rng(seed) in the call: api/step_plan.py
        # finds it among the steps' values); one handed in is refused there, since a
        # replay that stops later would have moved its state on
        return ("gen", orig)
    if isinstance(orig, _RANDOM):
        raise _Refused("a random generator as an argument")
    if isinstance(orig, _CONSTANTS) or callable(orig):
        return ("const", orig)
    raise _Refused(f"an argument of type {t.__name__}")


def _arrays(obj, out):
    t = type(obj)
    if t is np.ndarray:
        out.append(obj)
    elif t is tuple or t is list:
        for x in obj:
            _arrays(x, out)
    elif t is dict:
        for x in obj.values():
            _arrays(x, out)


def _result(r, inputs, same=False, depth=0):
    """How a replay takes the call's result apart: ('array', the array: a new pool
    entry, its shape and dtype checked), ('same', an argument it must be again),
    ('value', v: it must come out the same), or a tuple/list of those; or why it cannot
    be taken, in words."""
    t = type(r)
    if t is np.ndarray:
        if not traced_dtype(r.dtype):
            return f"a result of dtype {r.dtype}"
        if same and any(r is a for a in inputs):
            return ("same", r)
        if any(np.may_share_memory(r, a) for a in inputs):
            return "a result that shares memory with an argument"
        return ("array", r)
    if t is tuple or t is list:
        if depth > 2:
            return "a deeply nested result"
        items = []
        for x in r:
            got = _result(x, inputs, same, depth + 1)
            if isinstance(got, str):
                return got
            items.append(got)
        return ("seq", t, items)
    if isinstance(r, (int, float, complex, bool, np.generic)) or r is None:
        return ("value", r)
    if isinstance(r, np.random.Generator):     # default_rng(seed): a new value
        return ("gen", r)
    return f"a result of type {t.__name__}"


def same_value(a, b):
    """Is a read or returned value the very one recorded (type, shape, dtype and bits;
    NaN is NaN)?"""
    if type(a) is not type(b):
        return False
    if type(a) is np.ndarray:
        return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()
    if isinstance(a, np.generic):
        return a.dtype == b.dtype and a.tobytes() == b.tobytes()
    if type(a) is float or type(a) is complex:
        return np.asarray(a).tobytes() == np.asarray(b).tobytes()
    return a == b
