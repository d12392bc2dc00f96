"""A jitted function called with Dask arrays: Dask runs it, npcompile compiles its chunks.

`npcompile.jit(f)(x)` with `x` a dask.array.Array calls f on the Dask array itself, so
that Dask builds the graph as it does for any NumPy code (its own views, rechunking, tree
reductions with NumPy's semantics for mean, std/var with ddof, argmin/argmax), and then
hands back the same array with each of its fused chunk tasks run by npcompile: Dask fuses
a chain of blockwise operations, a reduction's chunk step included, into one task per chunk
(`_execute_subgraph` of a small graph of NumPy calls); that small graph is traced and
compiled into fused kernels, once per worker process for all the chunks of a layer (the
kernels' disk cache, keyed as in-process, serves the other workers), and replayed per
chunk. What npcompile cannot express breaks the chunk's trace and runs as NumPy, reported
as a graph break, as in any jitted function; the combine and aggregate steps of a
reduction run the same way, but for those on under SMALL_BYTES of partial results, which
run as plain NumPy.

The workers' records (compiles, kernels, breaks) come back into this process's report when
it is read, each naming its `worker` (dask_workers.py)."""
import functools
import sys

import numpy as np

from . import dask_workers
from .purity import Fixed

# A chunk task whose arrays hold fewer bytes than this runs as plain NumPy: a full
# reduction's combine and aggregate steps on its partial results (a few elements each)
# gain nothing compiled, and compiling them cost every worker that ran one a compile (or
# a disk cache load) at its first: mc_pi on 16 workers stayed at 85 ms where its chunks
# took 10. (An axis reduction's partials, a row each, are larger: those still compile.)
SMALL_BYTES = 4 << 10

# the chunk runners of this process (a worker's): Dask's layer -> its jitted function
_RUNNERS = {}
# jit.Jitted, which runners are, given by api/jit.py when it loads: this module sits below it
# (the jit hands Dask arrays here), so it does not import it
JITTED = [None]
_MAX_RUNNERS = 256


def _array_type():
    """dask.array.Array, or None where Dask is not loaded (nothing is imported: then no
    value can be one)."""
    core = sys.modules.get("dask.array.core")
    return None if core is None else core.Array


def has_dask_array(args, kwargs):
    """Is an argument a dask.array.Array?"""
    kind = _array_type()
    return kind is not None and (any(type(a) is kind for a in args) or
                                 any(type(v) is kind for v in kwargs.values()))


def call(jitted, args, kwargs):
    """The jitted function on Dask arrays: Dask's result, its chunks compiled."""
    return _compiled(jitted.original(*args, **kwargs))


def dask_ids(namespace):
    """The ids of the Dask arrays a namespace holds (a cell's, before it runs), or None
    where Dask is not loaded."""
    kind = _array_type()
    return None if kind is None else {id(v) for v in namespace.values() if type(v) is kind}


def compile_new(namespace, before, result):
    """After a %%npcompile cell: the Dask arrays it bound (not those it found) with their
    chunks compiled, and its result likewise. Returns the result."""
    kind = _array_type()
    if kind is None:
        return result
    for name, v in list(namespace.items()):
        if type(v) is kind and id(v) not in (before or ()):
            namespace[name] = compiled_chunks(v)
    return _compiled(result)


def _compiled(obj):
    if type(obj) is _array_type():
        return compiled_chunks(obj)
    if type(obj) in (tuple, list):
        return type(obj)(_compiled(x) for x in obj)
    if type(obj) is dict:
        return {k: _compiled(v) for k, v in obj.items()}
    return obj


def compiled_chunks(arr):
    """`arr` (a dask.array.Array) with its fused chunk tasks run by npcompile; from then
    on the session's readers take the workers' records first."""
    from dask._task_spec import DataNode, Task, _execute_subgraph
    import dask.array as da
    dask_workers.watch()
    dsk = arr.__dask_optimize__(arr.__dask_graph__(), arr.__dask_keys__())
    out = {key: _rewritten(key, node, Task, _execute_subgraph) for key, node in dict(dsk).items()}
    # Keys of their own: Dask would take the same keys for the same result (persisted
    # beside the uncompiled array, one of the two computations is never run)
    renamed = {k: _npc_key(k) for k, node in out.items() if not isinstance(node, DataNode)}
    out = {renamed.get(k, k): node.substitute(renamed, key=renamed.get(k, k))
           for k, node in out.items()}
    return da.Array(out, _npc_key(arr.name), arr.chunks, meta=arr._meta)


def _npc_key(key):
    if isinstance(key, tuple):
        return (_npc_key(key[0]),) + key[1:]
    return key if str(key).startswith("npc-") else f"npc-{key}"


def _rewritten(key, node, task, execute):
    """A task with its fused chunk graphs run by run_chunk. Dask fuses twice: blockwise
    layers into one graph per chunk, then linear chains (a from_array chunk, that graph, a
    getitem) into an outer graph holding them; the outer one runs as Dask runs it, with the
    graphs inside it rewritten, so that each chunk graph gets its arrays as arguments."""
    if not isinstance(node, task):
        return node
    if node.func is not execute:
        return _one_call(key, node, task) if node.dependencies and _computes(node.func) \
            else node
    inner, rest = node.args[0], node.args[1:]
    if any(isinstance(t, task) and t.func is execute for t in inner.values()):
        inner = {k: _rewritten(k, t, task, execute) for k, t in inner.items()}
        return task(key, execute, inner, *rest, **node.kwargs)
    return task(key, run_chunk, inner, *rest, **node.kwargs)


# Dask's functions that move data rather than compute (a chunk's read, a slice, joining
# partial results): left to Dask, as compiling them gains nothing
_MOVES = frozenset(("getter", "getter_inline", "getter_nofancy", "getitem", "concatenate3",
                    "_concatenate2", "concatenate", "stack", "asarray", "asanyarray"))


def _computes(func):
    """Does a task's function compute on arrays: a ufunc, an operator, a NumPy function or
    one of dask.array's chunk functions (a reduction's chunk or aggregate step)?"""
    while isinstance(func, functools.partial):
        func = func.func
    if type(func).__name__ == "Compose" and hasattr(func, "first"):   # toolz: an aggregate
        return any(_computes(f) for f in (func.first, *func.funcs))  # (sum of a concatenate)
    if isinstance(func, np.ufunc):
        return True
    module = getattr(func, "__module__", None) or ""
    return getattr(func, "__name__", "") not in _MOVES and (
        module == "_operator" or module.startswith(("numpy", "dask.array")))


def _one_call(key, node, task):
    """A task that is one call on chunks (a product of two from_array chunks: Dask fuses
    nothing there) as a chunk graph of that call alone, for run_chunk."""
    from dask._task_spec import TaskRef
    deps = sorted(node.dependencies, key=str)
    inkeys = tuple(f"__npc_in{i}" for i in range(len(deps)))
    outkey = key[0] if isinstance(key, tuple) else str(key)   # the layer: shared by its chunks
    inner = node.substitute(dict(zip(deps, inkeys)), key=outkey)
    return task(key, run_chunk, {outkey: inner}, outkey, inkeys, *(TaskRef(d) for d in deps))


def run_chunk(inner_dsk, outkey, inkeys, *dependencies):
    """One chunk of a fused layer, on a worker: its layer's jitted runner (made at its first
    chunk there) on this chunk's graph and arrays."""
    inner, keys, values = _hoisted(inner_dsk, inkeys, dependencies)
    if sum(v.nbytes for v in values if type(v) is np.ndarray) < SMALL_BYTES:
        from dask._task_spec import _execute_subgraph
        # the hoisted form: its reads of stored arrays are made already
        return _execute_subgraph(inner, outkey, keys, *values)
    inner, canonical_out, keys, token = _canonical(inner, outkey, keys)
    runner = _RUNNERS.get(token)
    if runner is None:
        if len(_RUNNERS) >= _MAX_RUNNERS:
            _RUNNERS.clear()
        runner = _RUNNERS[token] = _runner(inner, canonical_out, keys, token[0])
    return runner(*values)


def _canonical(inner, outkey, inkeys):
    """The chunk's graph with its keys named by position, and a token of it: the chunks of
    a layer differ in their keys' block indices only, so they share one token, one runner,
    and with it one trace that replays (a graph passed in as an argument has no key to
    replay by: every chunk was traced again, 0.3 ms each, which Dask's own NumPy chunk of
    40,000 elements takes whole). Anything else a chunk holds of its own (a slice, a
    shape) is in the token, so such chunks get runners of their own."""
    names = {k: f"__npc_in{i}" for i, k in enumerate(inkeys)}
    names.update((k, f"__npc_{i}") for i, k in enumerate(inner))
    renamed = {names[k]: node.substitute(names, key=names[k]) for k, node in inner.items()}
    keys = tuple(names[k] for k in inkeys)
    layer = outkey[0] if isinstance(outkey, tuple) else outkey
    token = tuple((k, _structure(node)) for k, node in renamed.items())
    return renamed, names[outkey], keys, (str(layer).split("-")[0], keys, token)


def _structure(node):
    """A hashable description of a task graph node: its function, and its arguments down to
    their values (dask's tokenize took 0.5 ms a chunk, more than a chunk's NumPy work). An
    array held inside stands for itself, so two chunks holding different ones never
    share a runner."""
    from dask._task_spec import DataNode, GraphNode, Task, TaskRef
    t = type(node)
    if isinstance(node, Task):
        return ("task", _function(node.func), tuple(_structure(a) for a in node.args),
                tuple(sorted((k, _structure(v)) for k, v in node.kwargs.items())))
    if isinstance(node, TaskRef):
        return ("ref", node.key)
    if isinstance(node, DataNode):
        return ("data", _structure(node.value))
    if isinstance(node, GraphNode):         # List, Dict and the like: their parts
        return (t.__name__, tuple(_structure(d) for d in getattr(node, "args", ())),
                repr(node) if not getattr(node, "args", ()) else None)
    if t in (tuple, list):
        return (t.__name__, tuple(_structure(x) for x in node))
    if t is dict:
        return ("dict", tuple(sorted((repr(k), _structure(v)) for k, v in node.items())))
    if t is np.ndarray:
        return ("array", id(node))
    if t is slice:
        return ("slice", node.start, node.stop, node.step)
    try:
        hash(node)
        return (t, node)
    except TypeError:
        return (t, repr(node))


def _function(func):
    if isinstance(func, functools.partial):
        return ("partial", _function(func.func), _structure(func.args),
                _structure(dict(func.keywords)))
    try:
        hash(func)
        return func
    except TypeError:
        return repr(func)


def _hoisted(inner_dsk, inkeys, dependencies):
    """The chunk's graph with its stored arrays taken out as arguments: the chunks a
    from_array graph holds (DataNodes), and its reads of them (a getter, fused in as the
    layer's root), made first, outside the trace. The jitted runner gets every array as an
    argument, where it is traced: an array inside its body is a constant of the graph, and
    arithmetic on it ran as plain NumPy."""
    from dask._task_spec import DataNode, Task
    from dask.array.chunk import getitem
    from dask.array.core import getter, getter_inline, getter_nofancy
    reads = (getter, getter_inline, getter_nofancy, getitem)
    given = dict(zip(inkeys, dependencies))
    inner, keys, values = dict(inner_dsk), list(inkeys), list(dependencies)
    for k, node in inner_dsk.items():
        if isinstance(node, DataNode) and isinstance(node.value, np.ndarray):
            value = node.value
        elif isinstance(node, Task) and node.func in reads and node.dependencies <= set(given):
            value = node(given)
        else:
            continue
        del inner[k]
        keys.append(k)
        values.append(value)
    return inner, tuple(keys), values


def _runner(inner, outkey, inkeys, what):
    from dask._task_spec import _execute_subgraph
    graph = Fixed(inner)    # never changed: a replay may rely on it

    def chunk(*dependencies):
        return _execute_subgraph(graph.value, outkey, inkeys, *dependencies)
    # named after what Dask's layer does ("dask chunk: sum"), as reports show it
    name = f"dask chunk: {what}"
    chunk.__name__ = chunk.__qualname__ = name
    # With the path choice, per worker: its first chunks of a layer sample the compiled
    # path and plain NumPy in turns (about seven), then the faster runs. Without it, an
    # int8 row sum ran compiled at 0.9x NumPy for good; with it, a computation of few
    # chunks per worker is mostly samples (bench/run_dask.py warms up past them).
    return JITTED[0](chunk, loops=False)


def runners():
    """The chunk runners this process made (its tests look at them)."""
    return dict(_RUNNERS)
