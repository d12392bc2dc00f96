"""The tracer of one compiled call or cell: records nodes, decides graph breaks, and
flushes the pending graph when Python needs a value."""
import threading
import weakref

import numpy as np

from ..errors import GraphBreakError
from ..graph.node import Node, Ref
from . import creation
from .breaks import BreakRecord, user_frame, user_site
from .native import core
from .storage import Storage
from . import lazy_array as _la  # circular: resolved at call time

if core is not None:  # the C++ op recorder reads the current tracer on every op
    current = core.current
    _set_current = core.set_current
else:
    _local = threading.local()

    def current():
        return getattr(_local, "tracer", None)

    def _set_current(tracer):
        _local.tracer = tracer

# dtype kinds the tracer takes over: bool, signed, unsigned, float, complex. Others
# (object, strings, datetimes) stay plain ndarrays and run in NumPy as usual.
TRACED_KINDS = frozenset("biufc")


def is_traceable(value):
    t = type(value)
    if t is np.ndarray:
        return value.dtype.kind in TRACED_KINDS
    return t.__name__ == "DeviceArray" and t is _device_array_type() and \
        value.dtype.kind in TRACED_KINDS


def _device_array_type():
    """DeviceArray (backends/device_array.py): GPU data enters a trace as a leaf too."""
    from ..backends.device_array import DeviceArray
    return DeviceArray


class Tracer:
    def __init__(self, site, options, engine):
        self.site = site          # identifies the function or cell: cache and recompiles
        self.options = options    # dict: device, fullgraph, dynamic
        self.engine = engine      # runs a flushed graph (graph/engine.py)
        self.lazies = []          # weak references to every LazyArray made
        self.targets = []         # storages that write back into a user's ndarray
        self.flush_index = 0      # graphs flushed so far in this call: part of the site key
        self.breaks = []
        self.ops = []
        self.graph_ids = []       # graphs run, by cache entry id
        self.runs = []            # (entry, leaves, outputs, ran compiled) per graph run
        self.writebacks = []      # (output node, user's array) per write into an input
        self._outer = None

    # ----- activation -------------------------------------------------------
    def __enter__(self):
        self._outer = current()
        _set_current(self)
        creation.enter()
        return self

    def __exit__(self, *exc):
        _set_current(self._outer)
        return False

    def suspended(self):
        """NumPy code run by npcompile itself (eager fallbacks, the executor) must not be
        traced: the creation-function wrappers see no tracer."""
        return _Suspended()

    # ----- making lazy arrays -------------------------------------------------
    def wrap_input(self, array, name):
        """A user ndarray enters the trace: a leaf whose storage writes back into it."""
        st = Storage(Node.leaf(array, name or "input"), target=array, name=name)
        for other in self.targets:
            if np.may_share_memory(other.target, array):
                other.aliased = st.aliased = True
        self.targets.append(st)
        return self._register(_la.LazyArray(st, (), st.base))

    def wrap_constant_array(self, array, name=None):
        """An ndarray met during tracing (a global, a closure): traced as a leaf too."""
        return self.wrap_input(array, name)

    def make(self, fn, args, kwargs, inputs, dtype, shape, label, scalar=False):
        node = Node(fn, args, kwargs, inputs, dtype, shape, label, user_site())
        self.ops.append(label)
        return self._register(_la.LazyArray(Storage(node), (), node, scalar))

    def make_multi(self, fn, args, kwargs, inputs, dtypes, shape, label):
        """A NumPy call with several outputs (divmod, modf, frexp): one tuple node and a
        getitem node per output."""
        import operator
        tup = Node(fn, args, kwargs, inputs, None, shape, label, user_site())
        self.ops.append(label)
        return tuple(self.make(operator.getitem, (Ref(0), i), None, (tup,), dt, shape,
                               f"{label}[{i}]") for i, dt in enumerate(dtypes))

    def _register(self, lazy):
        self.lazies.append(weakref.ref(lazy))
        return lazy

    # ----- graph breaks ------------------------------------------------------------
    def graph_break(self, kind, reason):
        """Record a break at the user's line; under fullgraph raise instead. Then flush."""
        rec = BreakRecord(kind, reason, user_frame(2))
        if self.options.get("fullgraph"):
            raise GraphBreakError(rec)
        self.breaks.append(rec)
        self.engine.record_break(self, rec)
        self.flush()
        return rec

    def eager(self, fn, args, kwargs, kind, reason):
        """Run one NumPy call eagerly on concrete values (a graph break), and trace on
        from its results."""
        self.graph_break(kind, reason)
        cargs = concretize(args)
        ckwargs = concretize(kwargs) if kwargs else {}
        with self.suspended():
            result = fn(*cargs, **ckwargs)
        return self.rewrap(result, cargs, ckwargs)

    def rewrap(self, result, cargs=(), ckwargs=None):
        """Arrays returned by eager NumPy become leaves, so tracing continues from them."""
        if type(result) is np.ndarray and result.dtype.kind in TRACED_KINDS:
            # The result may be a view of an argument (np.diagonal, out=...): keep its
            # aliasing visible to the in-place checks.
            for a in _arrays_in(cargs, ckwargs):
                if a is result:
                    return self._lazy_for_array(a)
            st = Storage(Node.leaf(result, "eager result"), target=result)
            for a in _arrays_in(cargs, ckwargs):
                if np.may_share_memory(a, result):
                    st.aliased = True
                    for t in self.targets:
                        if t.target is not None and np.may_share_memory(t.target, result):
                            t.aliased = True
            self.targets.append(st)
            return self._register(_la.LazyArray(st, (), st.base))
        if type(result) is tuple:
            return tuple(self.rewrap(r, cargs, ckwargs) for r in result)
        if type(result) is list:
            return [self.rewrap(r, cargs, ckwargs) for r in result]
        return result

    def _lazy_for_array(self, array):
        for st in self.targets:
            if st.target is array:
                return self._register(_la.LazyArray(st, (), st.base if st.base.is_leaf else None))
        return self.rewrap(array)

    # ----- flush -------------------------------------------------------------------
    def live_lazies(self):
        live = []
        for r in self.lazies:
            lz = r()
            if lz is not None:
                live.append(lz)
        self.lazies = [weakref.ref(lz) for lz in live]
        return live

    def flush(self):
        """Compute everything pending that is still referenced, once, and write the new
        values of traced inputs back into the user's arrays."""
        live = self.live_lazies()
        storages = {}
        for st in self.targets:
            storages[id(st)] = st
        for lz in live:
            storages[id(lz._st)] = lz._st
        pending = [st for st in storages.values() if not st.base.is_leaf]
        if pending:
            outputs = []
            seen = set()
            for st in pending:
                if id(st.base) not in seen:
                    seen.add(id(st.base))
                    outputs.append(st.base)
            # A view decided on an assumed layout needs NumPy's own layouts to settle:
            # those graphs run on the reference path (see storage.guessed).
            exact = any(st.guessed for st in pending)
            values = self.engine.run(self, outputs, exact_layout=exact)
            for node, value in zip(outputs, values):
                node.make_concrete(value)
            self.flush_index += 1
        for st in pending:
            if st.target is not None:
                self.writebacks.append((st.base, st.target))
                value = st.base.value
                if value is not st.target:
                    np.copyto(st.target, value, casting="unsafe")
                st.base = Node.leaf(st.target, st.name or "input")
        for st in storages.values():
            st.settle()
        for lz in live:
            lz._settle()


class _Suspended:
    """No tracer while npcompile runs NumPy itself (a class: a generator-based context
    manager costs a microsecond on every cached call)."""

    __slots__ = ("saved",)

    def __enter__(self):
        self.saved = current()
        _set_current(None)
        return self

    def __exit__(self, *exc):
        _set_current(self.saved)
        return False


def concretize(obj):
    """Replace lazy arrays inside args (tuples, lists, dicts) by their values."""
    t = type(obj)
    if t is _la.LazyArray:
        return obj._value()
    if t is tuple:
        return tuple(concretize(x) for x in obj)
    if t is list:
        return [concretize(x) for x in obj]
    if t is dict:
        return {k: concretize(v) for k, v in obj.items()}
    return obj


def _arrays_in(args, kwargs):
    for a in args:
        if type(a) is np.ndarray:
            yield a
        elif type(a) in (tuple, list):
            yield from _arrays_in(a, None)
    if kwargs:
        yield from _arrays_in(tuple(kwargs.values()), None)

