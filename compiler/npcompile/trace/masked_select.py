"""`x[m]` with a traced boolean mask m of x's shape, kept lazy as "x selected by m".

NumPy's `x[m]` is a compact 1-d copy whose length depends on the data, which a trace
cannot know: it was a graph break, twice per `x[m] *= -1` (the read, then the write of
an array). Yet the usual uses are elementwise: `x[m] *= -1`, `Z[m] = Z[m]**2 + C[m]`,
`x[x < 0] = 0.1 * x[x < 0]`. Elementwise work on the selected elements is the same work
on the whole array, read back where m holds: `x[m] = f(x[m])` is
`x[...] = np.where(m, f(x), x)`, which has a static shape and fuses into one kernel.

A Selected holds the full-shape value (a copy of x when made, so later writes to x do
not reach it) and the mask. Elementwise operators and ufuncs between Selecteds of the
same mask and 0-d operands give Selecteds again, computed full-shape; `x[m] = s` with
the same mask writes np.where. The compact array and the full one both have ndim >= 1,
so NumPy picks the same result dtype for both (scalars are weak either way, NumPy 1.x's
value-based casting included). Reductions whose result's shape does not follow the
count (`np.sum(x[m])`, `X[labels == k].mean(axis=0)`) are NumPy steps of the graph
(selected_reductions.py). Every other use (shape, len, indexing, printing, another
mask, passing it to other NumPy functions) first makes the real compact array, NumPy's
`x[m]` (a graph break), and from then on the Selected is that array: results never
differ from NumPy's. A Selected the function returns is made compact after the graph
ran, its last step and not a break (compaction.py makes it without a branch an element)."""
import math
import operator

import numpy as np

from .. import compaction, np_base as _nb
from ..dtypes import traced_dtype
from ..graph import calls
from ..graph.node import Ref, map_leaves
from . import lazy_array as _la, rules as _rules, selected_reductions
from .breaks import user_where
from .context import current
from .operands import Unsupported, as_lazy
from .python_numbers import lazy_int

REASON = "boolean mask indexing x[mask]: the result's shape depends on the data"
NONZERO_REASON = "np.nonzero: its length is the number of nonzero elements, known from " \
    "the data only"
UNIQUE_REASON = "np.unique: its length is the number of distinct values, known from the " \
    "data only"

_NUMERIC = "biufc"
_POWERS = (operator.pow, np.power)


def mask_over(mask, lead, ndim):
    """A mask of the axes from `lead` on, shaped to broadcast against an array of `ndim`
    axes (np.where's condition)."""
    trail = ndim - lead - mask.ndim
    return mask if not lead and not trail else \
        mask.reshape((1,) * lead + mask.shape + (1,) * trail)


def select(tracer, lz, mask, lead=0, reason=REASON):
    """`lz[mask]` as a Selected, or Unsupported (today's break) where it cannot be one.
    The mask may cover some axes only: from `lead` on (`X[:, freqs > fc]`), the others
    taken whole (k-means' X[labels == k] selects whole rows)."""
    if lz._scalar or lz.ndim == 0 or mask.ndim == 0 or \
            mask.shape != lz.shape[lead:lead + mask.ndim] or \
            lz.dtype.kind not in _NUMERIC or not traced_dtype(lz.dtype):
        raise Unsupported("data_shape", REASON)
    return Selected(_copy(tracer, lz), mask._n, _copy(tracer, mask), lead, user_where(), reason)


def nonzero_indices(tracer, a, flat=False):
    """The intp indices of a's nonzero elements as a lazy selection, for a 1-d array (any
    array where `flat`: np.flatnonzero ravels it), or None."""
    if type(a) is not _la.LazyArray or a._scalar or a.ndim == 0 or (a.ndim > 1 and not flat) \
            or a.dtype.kind not in "biufc":
        return None
    n = a.size
    positions = _positions(tracer, n)
    flat_a = a if a.ndim == 1 else a.reshape(n)
    # a != 0: NaN counts as nonzero, -0.0 does not, as in NumPy's test of each element.
    # Both nodes are new, out of the user's reach, so no later write can change them:
    # no copies (select's), which made the mask a second output of its kernel
    mask = flat_a != 0
    got = Selected(positions, mask._n, mask, 0, user_where(), NONZERO_REASON)
    got.positions = positions
    return got


def unique_values(tracer, a):
    """np.unique(a), its values alone, as a lazy selection, or None: a's values sorted
    (np.sort, NumPy's own algorithm, as np.unique sorts), selected where each differs from
    the one before, the first always. NaNs count as one, as NumPy's equal_nan does (they
    sort last, and only the first is kept). Integers, bools and real floats of at least
    one element; the sorted array and the mask are new nodes: no copies."""
    if type(a) is not _la.LazyArray or a._scalar or a.size == 0 or \
            a.dtype.kind not in "biuf":
        return None
    n = a.size
    s = np.sort(a.reshape(n))
    before = np.roll(s, 1)
    differs = s != before
    if a.dtype.kind == "f":
        differs = differs & ~(np.isnan(s) & np.isnan(before))
    mask = differs | (_positions(tracer, n) == 0)
    return Selected(s, mask._n, mask, 0, user_where(), UNIQUE_REASON)


def unique_counts(tracer, values):
    """The counts np.unique(a, return_counts=True) gives beside `values` (unique_values'
    selection), a selection of the same mask: NumPy's np.diff of the selected positions
    with n after them, that is, at each selected position p, the next selected position
    (n past the last) less p. The next one is a reverse running minimum of the selected
    positions (a scan), shifted by one: integers, so exactly NumPy's."""
    mask = values.mask_snap
    n = mask.shape[0]
    at = _positions(tracer, n)
    starts = np.where(mask, at, n)
    from_here = np.minimum.accumulate(starts[::-1])[::-1]   # the first selected at or after p
    following = np.where(at == n - 1, n, np.roll(from_here, -1))
    counts = following - at
    if type(counts) is not _la.LazyArray or counts.dtype != np.intp:
        return None
    return Selected(counts, values.mask_node, mask, 0, values.where, UNIQUE_REASON)


def _positions(tracer, n):
    """arange(n) in intp, a node of the graph (NumPy's own arange: the numpy module's entry
    is a tracing wrapper while traces run)."""
    intp = np.dtype(np.intp)
    return tracer.make(_nb.arange, (0, n, 1), {"dtype": intp}, (), intp, (n,), "arange")


def _copy(tracer, lz):
    # Its own node: a later write to lz (or to the mask) makes a new version of lz's
    # storage, and the memory of a concrete leaf may be written back into; a copy keeps
    # the values of now. It fuses as a pointwise read where it is used.
    return tracer.make(calls.copy, (Ref(0),), None, (lz._n,), lz.dtype, lz.shape, "copy")


def same_mask(a, b, depth=8):
    """Are two mask nodes surely the same values? The same node, or the same ufunc of
    surely equal inputs and equal constants (`x[np.abs(x) < 3] = ... x[np.abs(x) < 3]`
    builds its mask twice). Only ufuncs: two draws of random numbers look alike and
    are not."""
    if a is b:
        return True
    if depth == 0 or a.is_leaf or b.is_leaf or type(a.fn) is not np.ufunc or \
            a.fn is not b.fn or a.kwargs or b.kwargs or len(a.inputs) != len(b.inputs) or \
            len(a.args) != len(b.args) or a.dtype != b.dtype or a.shape != b.shape or \
            not all(same_mask(x, y, depth - 1) for x, y in zip(a.inputs, b.inputs)):
        return False
    for x, y in zip(a.args, b.args):
        if type(x) is not type(y):
            return False
        if type(x) is Ref:
            if x.i != y.i:
                return False
        elif not isinstance(x, (bool, int, float, complex, np.bool_, np.number)) or \
                not (x == y) or repr(x) != repr(y):   # repr: -0.0 against 0.0
            return False
    return True


def _scalar_operand(a):
    if type(a) in (bool, int, float, complex) or isinstance(a, (np.bool_, np.number)):
        return True
    if type(a) is _la.LazyArray or type(a) is np.ndarray:
        return a.ndim == 0 and a.dtype.kind in _NUMERIC
    return False


def _integer_like(a):
    return isinstance(a, (bool, int, np.bool_, np.integer)) or \
        getattr(getattr(a, "dtype", None), "kind", "f") in "biu"


def _lift(fn, args):
    """fn(*args) on the full-shape values behind the Selecteds among args, as a Selected;
    None where that is not surely NumPy's compact result (then the caller materializes)."""
    if current() is None:
        return None
    first = None
    full = []
    for a in args:
        if type(a) is Selected:
            if a._mat is not None:
                return None
            if first is None:
                first = a
            elif a.lead != first.lead or not same_mask(first.mask_node, a.mask_node):
                return None
            full.append(a.full)
        elif _scalar_operand(a):
            full.append(a)
        else:
            return None
    if first is None:
        return None
    # errstate 'raise': the elements not selected could raise where NumPy would not
    if any(v in ("raise", "call") for v in np.geterr().values()):
        return None
    if fn in _POWERS and len(args) == 2 and _integer_like(args[0]):
        # an integer power raises for negative exponents, but NumPy only when the
        # compact array is not empty: leave those to NumPy
        e = args[1]
        if type(e) is Selected or not isinstance(e, (int, np.integer)) or \
                isinstance(e, (bool, np.bool_)) or e < 0:
            return None
    try:
        r = fn(*full)
    except Exception:   # NumPy's error, raised on the compact array by the caller
        return None
    if type(r) is not _la.LazyArray or r._scalar or r.shape != first.full.shape or \
            r.dtype.kind not in _NUMERIC or not traced_dtype(r.dtype):
        return None
    return Selected(r, first.mask_node, first.mask_snap, first.lead, first.where, first.reason)


def written(lz, mask, lead, value):
    """`lz[mask] = value` (the mask's axes from `lead` on) for a Selected value of the
    same mask: the new whole of lz, np.where(mask, value, lz). None where that is not
    surely NumPy's write."""
    if value._mat is not None or value.lead != lead or value.full.shape != lz.shape or \
            mask.shape != lz.shape[lead:lead + mask.ndim] or \
            not same_mask(mask._n, value.mask_node) or lz.dtype.kind not in _NUMERIC:
        return None
    full = value.full
    if full.dtype != lz.dtype:
        # NumPy casts the values unsafely; only casts within a kind are taken over
        # (float->int and complex->real stay NumPy's)
        if not np.can_cast(full.dtype, lz.dtype, "same_kind"):
            return None
        full = full.astype(lz.dtype)
    new = np.where(mask_over(value.mask_snap, lead, lz.ndim), full, lz)
    if type(new) is not _la.LazyArray or new.shape != lz.shape or new.dtype != lz.dtype:
        return None
    return new


def _counts_at(ufunc, a, sel, v):
    """`np.add.at(counts, idx[m], 1)` (a histogram of the selected elements) into an
    integer array, as `np.add.at(counts, np.where(m, idx, 0), np.where(m, 1, 0))`: the
    unselected elements add 0 to counts[0], which leaves it as it was; every index
    that m selects is NumPy's, its IndexError included. Integers only (a float's -0.0
    plus 0 is +0.0), a constant of counts' dtype, and counts not empty (index 0 must
    exist). Did it record the write? (False: NumPy's call on the compact array.)"""
    tracer = current()
    if tracer is None or sel._mat is not None or ufunc not in (np.add, np.subtract) or \
            sel.mask_snap.shape != sel.full.shape or sel.lead or \
            type(a) is not _la.LazyArray or a.dtype.kind not in "iu" or not a.shape or \
            not a.shape[0] or sel.full.dtype.kind not in "iu" or \
            type(v) not in (int, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
                            np.uint32, np.uint64) or \
            not np.iinfo(a.dtype).min <= int(v) <= np.iinfo(a.dtype).max:
        return False
    zero = a.dtype.type(0)
    step = np.where(sel.mask_snap, a.dtype.type(v), zero)
    # inplace imports this module: its rules are reached as lazy arrays reach them
    _rules.inplace.ufunc_at(tracer, ufunc, a, np.where(sel.mask_snap, sel.full, 0), step)
    return True


def subselected(sel, key):
    """`y[k]` of a selection y = x[m] by a boolean selection k of the same mask, made from
    y itself (`d = d[np.abs(d - mu) < 3 * sd]`, sigma clipping): x selected by m & k's
    full-shape values, a Selected again, not a break. NumPy's compact y[k] takes y's
    elements where k holds, in order, and y's are x's where m holds, in C order: the
    same elements as x[m & k], in the same order. None where that is not sure (then y
    is made compact and indexed as NumPy does)."""
    tracer = current()
    if tracer is None or type(key) is not Selected or sel._mat is not None or \
            key._mat is not None or sel.lead or key.lead or \
            sel.mask_snap.shape != sel.full.shape or key.full.shape != sel.full.shape or \
            key.full.dtype != np.bool_ or not same_mask(sel.mask_node, key.mask_node):
        return None
    # a new node out of the user's reach: no later write changes the selection
    mask = np.logical_and(sel.mask_snap, key.full)
    if type(mask) is not _la.LazyArray or mask.shape != sel.full.shape:
        return None
    got = Selected(sel.full, mask._n, mask, 0, user_where(), sel.reason)
    if sel.positions is sel.full:   # np.nonzero's indices: np.flatnonzero of the new mask
        got.positions = got.full
    return got


def materialize_all(obj):
    """obj with every Selected inside (tuples, lists, dicts) made its compact array."""
    return map_leaves(obj, lambda x: x.materialize() if type(x) is Selected else x)


def _binary(fn, reflected=False):
    def op(self, other):
        r = _lift(fn, (other, self) if reflected else (self, other))
        if r is not None:
            return r
        m = self.materialize()
        return fn(other, m) if reflected else fn(m, other)
    return op


def _inplace(fn, ifn):
    def op(self, other):
        # `t op= v` changes the compact array itself (others holding it see it): the
        # Selected takes the new full-shape value. NumPy computes in the loop's dtype
        # and casts back with casting='same_kind'.
        r = _lift(fn, (self, other))
        if r is not None and (r.dtype == self.dtype or
                              np.can_cast(r.dtype, self.dtype, "same_kind")):
            self.full = r.full if r.dtype == self.dtype else r.full.astype(self.dtype)
            return self
        return ifn(self.materialize(), other)
    return op


def _unary(fn):
    def op(self):
        r = _lift(fn, (self,))
        return r if r is not None else fn(self.materialize())
    return op


def _delegate(name):
    def op(self, *args, **kwargs):
        return getattr(self.materialize(), name)(*args, **kwargs)
    op.__name__ = name
    return op


class Selected:
    """What `x[mask]` gives while tracing (see the module's docstring)."""

    __slots__ = ("full", "mask_node", "mask_snap", "lead", "where", "reason", "packed",
                 "positions", "_mat")
    __array_priority__ = 2000   # NumPy's scalars and arrays defer their operators to it
    _npc_selected = True        # concretize() knows it without importing this module

    def __init__(self, full, mask_node, mask_snap, lead=0, where=None, reason=REASON):
        self.full = full
        self.where = where           # the user's line that selected (breaks.user_where)
        self.reason = reason         # what made it, as its graph break says
        self.positions = None        # full, where full is arange(n): np.nonzero's indices
        self.packed = None           # (full's node, its packed rows): selected_reductions
        self.lead = lead             # the axes before the mask's, taken whole
        self.mask_node = mask_node   # the mask's identity, for same_mask
        # its values when selected: a copy, or a node of its own no later write reaches
        self.mask_snap = mask_snap
        self._mat = None

    def materialize(self):
        """NumPy's compact `x[mask]`, once; from then on this object stands for it. A
        graph break where the function goes on with it; not where it is returned (the
        jit makes it after the function returned): the graph has run whole, and the
        compaction is its last step, made by the runtime (compaction.py)."""
        if self._mat is None:
            tracer = current()
            # np.nonzero's indices unchanged since: NumPy's own np.flatnonzero of the mask
            # (it counts a bool array by words; compacting arange(n) moved 9x the bytes,
            # and a sieve's compiled path ran at 0.58x NumPy)
            if self.positions is self.full:
                fn, args = np.flatnonzero, (self.mask_snap,)
                self.full = self.positions = None   # not a graph output: never computed
            else:
                fn, args = compaction.select, (self.full, self.mask_snap, self.lead)
            if tracer is None:
                self._mat = fn(*_la.concretize(args))
            else:
                self._mat = tracer.eager(fn, args, None, "data_shape", self.reason, self.where,
                                         breaks=tracer.returned_at is None)
        return self._mat

    # static facts NumPy's compact array shares: no need for its values
    @property
    def dtype(self):
        return self.full.dtype if self._mat is None else self._mat.dtype

    @property
    def ndim(self):
        if self._mat is None:   # the selected axes become one
            return 1 + self.full.ndim - self.mask_snap.ndim
        return self._mat.ndim

    @property
    def shape(self):
        """NumPy's shape of the compact array: the selected axes become one, their
        length the mask's count, a Python int the graph computes (no break)."""
        tracer = current()
        if self._mat is not None or tracer is None:
            return self.materialize().shape
        mask = as_lazy(tracer, self.mask_snap)
        shape = self.full.shape
        count = lazy_int(tracer, np.sum(mask, dtype=np.intp), 0, mask.size)
        return shape[:self.lead] + (count,) + shape[self.lead + mask.ndim:]

    @property
    def size(self):
        """The number of elements selected: the count times the elements of the axes
        the mask does not cover (a Python int the graph computes)."""
        if self._mat is not None or current() is None:
            return self.materialize().size
        shape = self.shape
        count = shape[self.lead]
        whole = math.prod(shape[:self.lead] + shape[self.lead + 1:])
        return count * whole if whole != 1 else count

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.materialize(), name)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if method == "__call__" and not kwargs and ufunc.nout == 1 and \
                ufunc.signature is None and len(inputs) == ufunc.nin:
            r = _lift(ufunc, inputs)
            if r is not None:
                return r
        if method == "at" and not kwargs and len(inputs) == 3 and inputs[1] is self and \
                _counts_at(ufunc, *inputs):
            return None
        return getattr(ufunc, method)(*materialize_all(inputs), **materialize_all(kwargs))

    def __array_function__(self, func, types, args, kwargs):
        if args and args[0] is self:    # np.sum(x[m]), np.mean(X[m], axis=0): no break
            r = selected_reductions.bincount(current(), self, args[1:], kwargs, same_mask) \
                if func is np.bincount else \
                selected_reductions.reduce(current(), self, func, args[1:], kwargs)
            if r is not None:
                return r
        return func(*materialize_all(args), **materialize_all(kwargs))

    def __array__(self, *args, **kwargs):
        return self.materialize().__array__(*args, **kwargs)

    def __getitem__(self, key):
        got = subselected(self, key)
        return got if got is not None else self.materialize()[key]

    def __setitem__(self, key, value):
        self.materialize()[key] = value

    def __copy__(self):
        return self.materialize().copy()

    def __deepcopy__(self, memo):
        return self.materialize().copy()

    __hash__ = None   # an array is unhashable


for _name, _fn in [("add", operator.add), ("sub", operator.sub), ("mul", operator.mul),
                   ("truediv", operator.truediv), ("floordiv", operator.floordiv),
                   ("mod", operator.mod), ("pow", operator.pow), ("and", operator.and_),
                   ("or", operator.or_), ("xor", operator.xor), ("lshift", operator.lshift),
                   ("rshift", operator.rshift)]:
    setattr(Selected, f"__{_name}__", _binary(_fn))
    setattr(Selected, f"__r{_name}__", _binary(_fn, reflected=True))
    setattr(Selected, f"__i{_name}__", _inplace(_fn, getattr(operator, f"i{_name}")))
for _name, _fn in [("lt", operator.lt), ("le", operator.le), ("gt", operator.gt),
                   ("ge", operator.ge), ("eq", operator.eq), ("ne", operator.ne)]:
    setattr(Selected, f"__{_name}__", _binary(_fn))
for _name, _fn in [("neg", operator.neg), ("pos", operator.pos), ("abs", operator.abs),
                   ("invert", operator.invert)]:
    setattr(Selected, f"__{_name}__", _unary(_fn))
def _reduction(name, fn):
    def op(self, *args, **kwargs):
        r = selected_reductions.reduce(current(), self, fn, args, kwargs)
        return r if r is not None else getattr(self.materialize(), name)(*args, **kwargs)
    op.__name__ = name
    return op


for _name, _fn in selected_reductions.METHODS.items():
    setattr(Selected, _name, _reduction(_name, _fn))
for _name in ("__len__", "__iter__", "__contains__", "__bool__", "__int__",
              "__float__", "__complex__", "__index__", "__repr__", "__str__", "__format__",
              "__matmul__", "__rmatmul__", "__imatmul__", "__divmod__", "__rdivmod__",
              "__reduce__", "__reduce_ex__", "__reversed__", "__round__", "__dlpack__"):
    setattr(Selected, _name, _delegate(_name))
