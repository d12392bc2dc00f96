"""LazyArray: what NumPy code sees while it is traced. Every operation records a node;
asking for a value (bool, int, print, ...) is a graph break that computes it."""
import operator
import sys

import numpy as np

from .. import np_base as _nb

from ..graph import calls
from ..graph.node import Node, Ref, substitute
from . import native
from . import python_numbers as _pn
from . import rules as _rules
from .code_zones import zone_of
from .context import current
from .native import core
from .operand_types import NUMPY2, SCALAR_TYPES, Unsupported
from .storage import Storage, view_node


def _dispatch(fallback, rule, *args):
    """Run a tracing rule; if it cannot trace the call, run NumPy eagerly (a graph break)."""
    tracer = current()
    if tracer is None:  # used after its trace ended: plain NumPy on the value
        return fallback(*concretize(args))
    try:
        return rule(tracer, *args)
    except Unsupported as u:
        return tracer.eager(fallback, args, None, u.kind, u.reason)


if core is not None:  # fields, operators and __array_ufunc__ in C++ (LazyObject.hpp)
    _LazyFields = core.LazyBase
else:
    class _LazyFields:
        __slots__ = ("_st", "_chain", "_node", "_ver", "_scalar", "_fake", "__weakref__")


def _compact_keys(key):
    """An index with lazy selections in it (`x[np.nonzero(m)[0]]`, `x[y[m]]`) made
    compact (trace/masked_select.py): an integer index array the gather rules take,
    where the selection's own type is none they know (a second graph break)."""
    t = type(key)
    if t is int or t is slice:
        return key
    if getattr(t, "_npc_selected", False):
        return key.materialize()
    if t is tuple and any(getattr(type(k), "_npc_selected", False) for k in key):
        return tuple(k.materialize() if getattr(type(k), "_npc_selected", False) else k
                     for k in key)
    return key


class LazyArray(_LazyFields):
    __slots__ = ()
    __array_priority__ = 1000

    @property
    def __class__(self):
        """int, float or bool for a Python number the graph computes, so that
        `isinstance(n, int)` answers as for the number as written (a branch on it
        would go the other way); LazyArray otherwise."""
        s = self._scalar
        return LazyArray if s is True or s is False else s.type

    def __hash__(self):
        """A NumPy scalar is hashable (a dict key, a set member): by its value. An array
        is not, as in NumPy."""
        if not self._scalar:
            raise TypeError("unhashable type: 'numpy.ndarray'")
        v = self._force("number", "hash() of a NumPy scalar (a dict key or set member)")
        if type(v) is not np.ndarray and hasattr(v, "get"):    # a GPU 0-d array
            v = v.get()
        return hash(v[()] if type(v) is np.ndarray else v)

    def __init__(self, storage, chain, node, scalar=False):
        self._st = storage
        self._chain = chain
        self._node = node
        self._ver = storage.version
        self._scalar = scalar
        self._fake = None

    # ----- state ---------------------------------------------------------------
    @property
    def _n(self):
        """The node holding this array's current value (re-derived after a write)."""
        node = self._node
        if node is None or self._ver != self._st.version:
            node = self._st.base
            for step in self._chain:
                node = view_node(step, node)
            self._node = node
            self._ver = self._st.version
        return node

    def _get_fake(self):
        f = self._fake
        if f is None:
            f = self._st.base_fake()
            for step in self._chain:
                f = step.apply(f)
            self._fake = f
        return f

    def _settle(self):
        """After a flush: hold the concrete value, a real NumPy view where NumPy has one."""
        st = self._st
        self._fake = None
        if not self._chain:
            self._node = st.base
        else:
            base = st.base.value
            value = calls.apply_chain(base, self._chain)
            self._node = Node.leaf(value, "view")
            if not np.may_share_memory(value, base):
                # NumPy copied where the trace assumed a view: this is its own array now.
                self._st = Storage(self._node)
                self._chain = ()
        self._ver = self._st.version

    def _value(self):
        node = self._n
        if not node.is_leaf:
            tracer = current()
            if tracer is None:
                raise RuntimeError("npcompile: a lazy array outlived its trace uncomputed")
            tracer.flush()
            node = self._n
        s = self._scalar
        if s is True or s is False:
            return node.value
        return s.type(node.value)   # a Python number: what the program as written holds

    def _force(self, kind, reason):
        tracer = current()
        if tracer is not None:
            # (a loop body's scalars made from its loop variable are not read so: a
            # break there refuses the body, trace/loop_values.py)
            if self._n.is_leaf or (tracer.loop_values is None and
                                   self._read_directly(tracer)):
                # no graph to run, but Python now depends on the values: no replay, but
                # for a plan of steps that finds them again (trace/steps.py)
                value = self._value()
                tracer.read_value(reason, self, value)
                return value
            else:
                # a number or truth value read at a break: a replay reads it again and
                # must find it the same (trace/steps.py)
                recorded = kind == "bool" or kind == "number"
                tracer.graph_break(kind, reason, recorded)
                value = self._value()
                if recorded:
                    tracer.read_at_break(self, value)
                return value
        return self._value()

    def _read_directly(self, tracer):
        """Make this array concrete without a flush when it is read straight out of
        concrete arrays: a view of one, an element of one (`for v in x: float(v)`), or
        0-d arithmetic on such elements (`if v > 0`). Those NumPy calls run here, as a
        flush would run them, with nothing else pending; anything more is a break."""
        if tracer.options.get("fullgraph"):
            return False  # data-dependent Python: fullgraph says so
        st = self._st
        if self._chain:
            if not st.base.is_leaf:
                return False
            self._settle()
            if self._st is not st:  # NumPy copied: the next flush files it under its own
                tracer._register(self)
            return True
        node = self._n
        if st.target is not None or node is not st.base:
            return False
        order = []
        if not _direct_reads(node, order, set()):
            return False
        try:
            with tracer.suspended():
                value = _evaluate(order)
        except Exception:  # NumPy's error, where the graph would raise it: break there
            return False
        tracer.note_direct(node, order)
        node.make_concrete(value)
        st.settle()
        self._settle()
        return True

    # ----- static metadata: known while tracing, never a break ----------------------
    @property
    def shape(self):
        if self._scalar.__class__ is _pn.PyNumber and not _asked_by_us():  # (inline)
            _no_attribute(self, "shape")
        return self._n.shape

    @shape.setter
    def shape(self, value):
        """`a.shape = (10, -1)`: NumPy's in-place reshape, which it allows only where the
        new shape is a view of the same memory. NumPy decides, on the layout's stand-in
        (its error, word for word); the array then is that view."""
        probe = self._get_fake().view()
        probe.shape = value
        new = self.reshape(probe.shape)
        if type(new) is not LazyArray:   # no trace running: the value itself is concrete
            raise AttributeError("shape of an array made while tracing is fixed once the "
                                 "trace has ended; use reshape()")
        self._st, self._chain, self._node = new._st, new._chain, new._node
        self._ver, self._scalar, self._fake = new._ver, new._scalar, None

    @property
    def dtype(self):
        if self._scalar.__class__ is _pn.PyNumber and not _asked_by_us():
            _no_attribute(self, "dtype")
        return self._n.dtype

    @property
    def ndim(self):
        if self._scalar.__class__ is _pn.PyNumber and not _asked_by_us():
            _no_attribute(self, "ndim")
        return len(self._n.shape)

    @property
    def size(self):
        if self._scalar.__class__ is _pn.PyNumber and not _asked_by_us():
            _no_attribute(self, "size")
        s = 1
        for d in self._n.shape:
            s *= d
        return s

    @property
    def itemsize(self):
        return self._n.dtype.itemsize

    @property
    def nbytes(self):
        return self.size * self.itemsize

    def __len__(self):
        shape = self._n.shape
        if not shape:
            raise TypeError("len() of unsized object")
        return shape[0]

    # ----- values: graph breaks -----------------------------------------------------
    def __bool__(self):
        return bool(self._force("bool", "bool() of an array value (if/while/and/or on data)"))

    def __int__(self):
        return int(self._force("number", "int() of an array value"))

    def __float__(self):
        return float(self._force("number", "float() of an array value"))

    def __complex__(self):
        return complex(self._force("number", "complex() of an array value"))

    def __index__(self):
        return operator.index(self._force("number", "an array value used as an index"))

    def __round__(self, *ndigits):
        # NumPy scalars round (round(x[i], 2) is a float64, round(x[i]) an int); arrays,
        # 0-d ones too, do not
        if not self._scalar:
            raise TypeError("type numpy.ndarray doesn't define __round__ method")
        v = self._force("number", "round() of an array value")
        return round(v[()] if type(v) is np.ndarray else v, *ndigits)

    def item(self, *args):
        return self._force("number", ".item() of an array").item(*args)

    def tolist(self):
        return self._force("tolist", ".tolist() of an array").tolist()

    def __repr__(self):
        return repr(self._force("print", "repr() or print of an array"))

    def __str__(self):
        return str(self._force("print", "str() or print of an array"))

    def __format__(self, spec):
        return format(self._force("print", "formatting an array value"), spec)

    def __array__(self, dtype=None, *args, **kwargs):
        v = _nb.asarray(self._force("array", "conversion to ndarray (__array__) by code outside NumPy"))
        return v if dtype is None else v.astype(dtype, copy=False)

    def __iter__(self):
        """As NumPy iterates an ndarray: self[0], self[1], ... taken one at a time (views
        along axis 0; one element of a 1-D array is a NumPy scalar), traced like any other
        indexing, so `a, b = p` neither breaks the graph nor reads p's values."""
        shape = self._n.shape
        if not shape:
            raise TypeError("iteration over a 0-d array")
        return _items(self, shape[0])

    def __contains__(self, x):
        return x in self._force("bool", "`in` test on an array")

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        value = self._force("attribute", f"ndarray.{name} is not captured")
        return getattr(value, name)

    # ----- NumPy protocols: __array_ufunc__ is _array_ufunc below -----------------------
    def __array_function__(self, func, types, args, kwargs):
        tracer = current()
        if tracer is None:
            return func(*concretize(args), **concretize(kwargs))
        if _has_python_number(args) or _has_python_number(kwargs):
            # NumPy's functions take a Python number weakly (np.where(m, n, x32) stays
            # float32) or by its value (NumPy 1.x), each in its own way: they get the
            # number itself (its value read)
            args, kwargs = _python_values(args), _python_values(kwargs)
        return _rules.function_rules.call(tracer, func, args, kwargs)

    # ----- indexing ----------------------------------------------------------------
    def __getitem__(self, key):
        if self._scalar is not True and self._scalar is not False:   # a Python number
            return self._force("number", "indexing a Python number")[key]  # Python's error
        # first: making a selection compact is a graph break, which can end the trace
        # (the break budget), and what follows must see that
        key = _compact_keys(key)
        if current() is None:
            # untraced (a data-bounded loop, a call past the break budget): NumPy's own
            # indexing on the value, without _dispatch's generic concretize of its
            # arguments (8 us against NumPy's 0.1 us for `indptr[i]`)
            return self._value()[concretize(key)]
        return _dispatch(_getitem, _rules.view_rules.getitem, self, key)

    def __setitem__(self, key, value):
        # first, as in __getitem__: the break of a selection made compact can end the trace
        # (a write recorded into an ended trace was never computed: random_walk_hitting)
        key = _compact_keys(key)
        tracer = current()
        if tracer is None:
            self._value()[concretize(key)] = concretize(value)
            return
        try:
            _rules.inplace.setitem(tracer, self, key, value)
        except Unsupported as u:
            tracer.graph_break(u.kind, u.reason)
            self._value()[concretize(key)] = concretize(value)

    # ----- methods -------------------------------------------------------------------
    def astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
        return _dispatch(_astype, _rules.function_rules.astype, self, dtype, order, casting,
                         subok, copy)

    def reshape(self, *shape, order="C"):
        if len(shape) == 1:
            shape = shape[0]
        return _dispatch(_reshape, _rules.view_rules.reshape, self, shape, order)

    def ravel(self, order="C"):
        return _dispatch(_ravel, _rules.view_rules.ravel, self, order)

    def flatten(self, order="C"):
        return _dispatch(_flatten, _rules.function_rules.flatten, self, order)

    def transpose(self, *axes):
        if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
            axes = axes[0]
        axes = tuple(axes) if axes else None
        return self.__array_function__(np.transpose, (LazyArray,), (self, axes), {})

    @property
    def T(self):
        return self.__array_function__(np.transpose, (LazyArray,), (self,), {})

    @property
    def real(self):
        return self.__array_function__(np.real, (LazyArray,), (self,), {})

    @real.setter
    def real(self, value):
        self.real[...] = value

    @property
    def imag(self):
        return self.__array_function__(np.imag, (LazyArray,), (self,), {})

    @imag.setter
    def imag(self, value):
        if self.dtype.kind != "c":
            raise TypeError("array does not have imaginary part to set")
        self.imag[...] = value

    def swapaxes(self, a, b):
        return self.__array_function__(np.swapaxes, (LazyArray,), (self, a, b), {})

    def squeeze(self, axis=None):
        return self.__array_function__(np.squeeze, (LazyArray,), (self, axis), {})

    def copy(self, order="C"):
        return _dispatch(_copy, _rules.function_rules.copy, self, order)

    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        return self.copy()

    def fill(self, value):
        tracer = current()
        if tracer is None:
            return self._value().fill(value)
        try:
            _rules.inplace.fill(tracer, self, value)
        except Unsupported as u:
            tracer.graph_break(u.kind, u.reason)
            self._value().fill(concretize(value))

    def dot(self, other):
        return self.__array_function__(np.dot, (LazyArray,), (self, other), {})

    def clip(self, min=None, max=None, **kwargs):
        return self.__array_function__(np.clip, (LazyArray,), (self, min, max), kwargs)

    # ndarray's ** with a scalar exponent takes fast paths (square, sqrt, reciprocal)
    # that differ from np.power in the last bit: record the operator itself.
    def __pow__(self, other):
        if _pn.is_python(self) or _pn.is_python(other):
            return _python_operator(np.power, self, other)
        if isinstance(other, SCALAR_TYPES):
            return _dispatch(operator.pow, _rules.function_rules.scalar_pow, self, other)
        if not NUMPY2 and np.ndim(other) == 0 and type(other) in (LazyArray, np.ndarray) and \
                _fast_power_differs(self, other.dtype):
            # NumPy 1.x: ndarray's ** takes its fast path (square, sqrt, ...) for some
            # values of a 0-d exponent only, and np.power's promotion for the others:
            # where their dtypes differ, the dtype hangs on the value: read it.
            v = other._force("value_dtype", "a 0-d exponent's value decides the result "
                             "dtype (NumPy 1.x)") if type(other) is LazyArray else other
            return self.__pow__(v[()])
        return self.__array_ufunc__(np.power, "__call__", self, other)

    def __ipow__(self, other):
        if self._scalar:
            return self.__pow__(other)
        if isinstance(other, SCALAR_TYPES):
            tracer = current()
            if tracer is None:
                v = self._value()
                v **= other
                return self
            try:
                _rules.inplace.write_ipow(tracer, self, other)
            except Unsupported as u:
                tracer.graph_break(u.kind, u.reason)
                v = self._value()
                v **= other
            return self
        return self.__array_ufunc__(np.power, "__call__", self, other, out=(self,))


def _fast_power_differs(base, exponent_dtype):
    """Would ndarray's fast path of ** (NumPy 1.x) give another dtype than np.power for a
    0-d exponent of this dtype? A 0-d base: promotion is by types alone, the fast path
    keeps the base's. An array: np.square of bool is int8 where np.power gives int64."""
    if base._n.shape == ():
        return np.result_type(base.dtype, exponent_dtype) != base.dtype
    with np.errstate(all="ignore"):
        x = _nb.zeros((1,), base.dtype)
        return np.square(x).dtype != np.power(x, _nb.zeros((), exponent_dtype)).dtype


def _array_ufunc(self, ufunc, method, *inputs, **kwargs):
    """LazyArray.__array_ufunc__: every ufunc rule (the C++ core records plain calls it
    has seen before without coming here)."""
    tracer = current()
    if tracer is None:
        return getattr(ufunc, method)(*concretize(inputs), **concretize(kwargs))
    for x in inputs:   # an x[mask] kept lazy among them decides (trace/masked_select.py)
        if getattr(type(x), "_npc_selected", False):
            return x.__array_ufunc__(ufunc, method, *inputs, **kwargs)
    try:
        if _has_python_number(inputs):
            inputs = _pn.numpy_operands(tracer, ufunc, inputs, kwargs) \
                if method == "__call__" else _python_values(inputs)
        if method == "__call__":
            return _rules.ufunc_rules.call(tracer, ufunc, inputs, dict(kwargs))
        if method == "reduce":
            return _rules.function_rules.ufunc_reduce(tracer, ufunc, inputs, dict(kwargs))
        if method == "accumulate" and len(inputs) == 1:
            return _rules.library_rules.accumulate(tracer, ufunc, inputs[0], **kwargs)
        if method == "reduceat" and len(inputs) == 2:
            return _rules.library_rules.reduceat(tracer, ufunc, *inputs, **kwargs)
        if method == "outer" and len(inputs) == 2:
            return _rules.ufunc_rules.outer(tracer, ufunc, *inputs, **kwargs)
        if method == "at" and not kwargs:
            return _rules.inplace.ufunc_at(tracer, ufunc, *inputs)
        raise Unsupported("unsupported", f"np.{ufunc.__name__}.{method}")
    except Unsupported as u:
        result = tracer.eager(getattr(ufunc, method), inputs, kwargs, u.kind,
                              f"{u.reason}" if u.kind != "unsupported" else
                              f"unsupported: {u.reason}")
        out = kwargs.get("out")
        if out is not None:  # NumPy hands back the out= array itself
            out = out[0] if type(out) is tuple and len(out) == 1 else out
            if type(out) is LazyArray:
                return out
        return result


def _getitem(a, key):
    return a[key]


# Indexing and views: reading them costs nothing, whatever the size of what they read.
_VIEW_FNS = frozenset((operator.getitem, np.transpose, np.swapaxes, np.squeeze,
                       np.expand_dims, np.moveaxis))
_MAX_DIRECT = 16


def _direct_reads(node, order, seen):
    """Collect into `order` (inputs first) the pending nodes behind `node` if every one
    is a view or element of its input, or 0-d arithmetic on 0-d values."""
    if node.is_leaf:  # host values only (a DeviceArray's elements are the engine's)
        return type(node.value) is np.ndarray or isinstance(node.value, np.generic)
    if id(node) in seen:
        return True
    if len(order) >= _MAX_DIRECT:
        return False
    if node.fn in _VIEW_FNS:
        if len(node.inputs) != 1:
            return False
    elif node.shape != () or any(i.shape != () for i in node.inputs):
        return False
    for i in node.inputs:
        if not _direct_reads(i, order, seen):
            return False
    seen.add(id(node))
    order.append(node)
    return True


def _evaluate(order):
    """The recorded NumPy calls, in order (what the reference executor does)."""
    vals = {}
    for n in order:
        ins = [i.value if i.is_leaf else vals[id(i)] for i in n.inputs]
        fn = n.fn
        if fn in _VIEW_FNS or type(fn) is np.ufunc:  # Refs only at the top level
            args = [ins[a.i] if type(a) is Ref else a for a in n.args]
        else:
            args = substitute(n.args, ins)
        kwargs = substitute(n.kwargs, ins) if n.kwargs else {}
        vals[id(n)] = fn(*args, **kwargs)
    return vals[id(order[-1])]


def _items(lz, n):
    for i in range(n):
        tracer = current()
        yield _rules.view_rules.item(tracer, lz, i) if tracer is not None else lz[i]


def _astype(a, dtype, order, casting, subok, copy):
    return a.astype(dtype, order=order, casting=casting, subok=subok, copy=copy)


def _reshape(a, shape, order):
    return a.reshape(shape, order=order)


def _ravel(a, order):
    return a.ravel(order)


def _flatten(a, order):
    return a.flatten(order)


def _copy(a, order):
    return a.copy(order)


def _method(ufunc, reflected=False):
    if reflected:
        def op(self, other):
            if _pn.is_python(self) or _pn.is_python(other):
                return _python_operator(ufunc, other, self)
            return self.__array_ufunc__(ufunc, "__call__", other, self)
    else:
        def op(self, other):
            if _pn.is_python(self) or _pn.is_python(other):
                return _python_operator(ufunc, self, other)
            return self.__array_ufunc__(ufunc, "__call__", self, other)
    return op


def _inplace_method(ufunc):
    def op(self, other):
        if self._scalar:  # NumPy scalars and Python numbers are immutable: `s += 1` rebinds
            if _pn.is_python(self) or _pn.is_python(other):
                return _python_operator(ufunc, self, other)
            return self.__array_ufunc__(ufunc, "__call__", self, other)
        return self.__array_ufunc__(ufunc, "__call__", self, other, out=(self,))
    return op


def _unary(ufunc):
    def op(self):
        if _pn.is_python(self):
            return _python_operator(ufunc, self)
        return self.__array_ufunc__(ufunc, "__call__", self)
    return op


def _python_operator(ufunc, *inputs):
    """An operator with a lazy Python number among its operands (the C++ core's
    operators call this too): Python's rules where all operands are Python numbers,
    NumPy's for the Python number otherwise (trace/python_numbers.py)."""
    tracer = current()
    if tracer is not None:
        r = _pn.operator_call(tracer, ufunc, inputs, _rules.ufunc_rules.call)
        if r is not None:
            return r
        lazy = next(x for x in inputs if type(x) is LazyArray)
        return lazy.__array_ufunc__(ufunc, "__call__", *inputs)
    op = _pn.python_operator(ufunc)
    values = concretize(inputs)
    return op(*values) if op is not None else ufunc(*values)


def _has_python_number(obj):
    t = type(obj)
    if t is LazyArray:
        return obj._scalar.__class__ is _pn.PyNumber
    if t is tuple or t is list:
        return any(_has_python_number(x) for x in obj)
    if t is dict:
        return any(_has_python_number(x) for x in obj.values())
    return False


def _python_values(obj):
    """obj with each lazy Python number as its value (read: a graph break)."""
    t = type(obj)
    if t is LazyArray:
        return obj._force("number", "a Python number handed to a NumPy function") \
            if obj._scalar.__class__ is _pn.PyNumber else obj
    if t is tuple or t is list:
        return t(_python_values(x) for x in obj)
    if t is dict:
        return {k: _python_values(v) for k, v in obj.items()}
    return obj


for _name, _uf in [("add", np.add), ("sub", np.subtract), ("mul", np.multiply),
                   ("truediv", np.true_divide), ("floordiv", np.floor_divide),
                   ("mod", np.remainder), ("and", np.bitwise_and),
                   ("or", np.bitwise_or), ("xor", np.bitwise_xor), ("lshift", np.left_shift),
                   ("rshift", np.right_shift), ("matmul", np.matmul), ("divmod", np.divmod)]:
    if core is None or _name in ("matmul", "divmod"):  # else the C++ slots record them
        setattr(LazyArray, f"__{_name}__", _method(_uf))
        setattr(LazyArray, f"__r{_name}__", _method(_uf, reflected=True))
    if _name != "divmod":
        setattr(LazyArray, f"__i{_name}__", _inplace_method(_uf))
LazyArray.__rpow__ = _method(np.power, reflected=True)
for _name, _uf in [("lt", np.less), ("le", np.less_equal), ("gt", np.greater),
                   ("ge", np.greater_equal), ("eq", np.equal), ("ne", np.not_equal)]:
    if core is None:
        setattr(LazyArray, f"__{_name}__", _method(_uf))
for _name, _uf in [("neg", np.negative), ("pos", np.positive), ("abs", np.absolute),
                   ("invert", np.invert)]:
    if core is None:
        setattr(LazyArray, f"__{_name}__", _unary(_uf))
if core is None:
    LazyArray.__array_ufunc__ = _array_ufunc
else:
    native.install(LazyArray, Storage, _array_ufunc, _python_operator)

# Reductions and other methods that are their function: x.sum(axis) is np.sum(x, axis),
# x.cumsum() np.cumsum(x). (Not sort and partition: as methods they work in place.)
# Only those this NumPy's ndarray has: NumPy 2 removed ndarray.ptp.
for _name in ("sum", "prod", "mean", "std", "var", "min", "max", "argmin", "argmax", "any", "all",
              "cumsum", "cumprod", "round", "argsort", "diagonal", "ptp", "take",
              "searchsorted", "trace", "repeat", "nonzero", "compress"):
    if not hasattr(np.ndarray, _name):
        continue
    def _make(fname):
        npfn = getattr(np, fname)

        def method(self, *args, **kwargs):
            return self.__array_function__(npfn, (LazyArray,), (self,) + args, kwargs)
        method.__name__ = fname
        return method
    setattr(LazyArray, _name, _make(_name))


def _asked_by_us():
    """Is the attribute read by npcompile's own code (a trace rule reading a lazy Python
    number's dtype, shape, ndim or size, as it does of every operand), not the user's?
    Those rules were written for 0-d values and get the number's: the user's `n.dtype`
    of a count still raises Python's AttributeError, where a rule's crashed the program
    (np.array([count, count + 1]), x[count - 5])."""
    return zone_of(sys._getframe(2).f_code.co_filename) == "ours"


def _no_attribute(lz, name):
    """A Python number has no ndarray attributes: Python's AttributeError (`n.T` of a
    count raises in the program as written; it gave the count's transpose)."""
    raise AttributeError(f"'{lz._scalar.type.__name__}' object has no attribute '{name}'")


def _only_for_arrays(name, attr):
    """attr of LazyArray, refused for a Python number (_no_attribute)."""
    if isinstance(attr, property):
        fget = attr.fget

        def get(self):
            if self._scalar.__class__ is _pn.PyNumber:
                _no_attribute(self, name)
            return fget(self)
        return property(get, attr.fset, attr.fdel, attr.__doc__)

    def method(self, *args, **kwargs):
        if self._scalar.__class__ is _pn.PyNumber:
            _no_attribute(self, name)
        return attr(self, *args, **kwargs)
    method.__name__ = name
    return method


# (shape, dtype, ndim and size check inline: every rule reads them)
for _name, _attr in list(vars(LazyArray).items()):
    if not _name.startswith("_") and (isinstance(_attr, property) or callable(_attr)) and \
            _name not in ("shape", "dtype", "ndim", "size") and \
            not any(hasattr(t, _name) for t in (int, float, bool)):
        setattr(LazyArray, _name, _only_for_arrays(_name, _attr))


def concretize(obj):
    """Replace lazy arrays inside args (tuples, lists, dicts) by their values."""
    t = type(obj)
    if t is LazyArray:
        return obj._value()
    if t is tuple:
        return tuple(concretize(x) for x in obj)
    if t is list:
        return [concretize(x) for x in obj]
    if t is dict:
        # keys too: `{a.sum(): 1}` is keyed by a NumPy scalar in NumPy
        return {concretize(k): concretize(v) for k, v in obj.items()}
    if t is set or t is frozenset:
        return t(concretize(x) for x in obj)
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):   # NumPy 2's QRResult, ...
        return t(*(concretize(x) for x in obj))
    if getattr(t, "_npc_selected", False):   # x[mask] kept lazy (trace/masked_select.py)
        return concretize(obj.materialize())
    return obj
