"""Kernel expressions: the small primitive set a graph node lowers to.

  load(buffer)  const(value)  pw(op, inputs)  cast(x)  reduce(op, x, axes)
  scan(op, x, axis): the running pw op along one axis (np.cumsum, ufunc.accumulate); with
                flat, along x's elements in C order (axis=None), the result 1-d
  concat(pieces, axis): element i along `axis` read from the piece whose range holds i
  view(x, map): x read at an affine function of the index (a slice, transpose, new
                axis or broadcast of a computed array, without writing it first)

Broadcasting is implicit (an input of a pointwise op is read at the broadcast index);
mean, var, std and norm are compositions of these; np.roll, np.pad, np.hstack and their
kin are concatenations (of views, constants or computed pieces), so a periodic stencil
is one kernel. A node that does not lower runs in NumPy between kernels (a library step)."""
import operator

import numpy as np

from .. import np_base as _nb
from ..dtypes import NUMPY2
from ..graph import calls
from ..ops import (COMPLEX_PARTS, COMPLEX_UFUNCS, POINTWISE_UFUNCS, REDUCTIONS,
                   UFUNC_REDUCTIONS, VIEW_LABELS, scan_ufunc)
from ..graph.node import Ref
from . import half, paste
from .expr_nodes import Expr, view_map


# A kernel picks each element's piece by comparing its index with every boundary: past
# this many pieces NumPy's copies are faster (a loop's history of 100 rows stacked:
# 2.3x slower as one kernel)
MAX_CONCAT_PIECES = 16


# the dtype kinds every renderer computes; complex ("c") where the target's renderer
# says so (codegen/cpp.KINDS), given to Lowering
KINDS = "biuf"


_LOOPS = {}   # (ufunc, operand dtypes, result dtype) -> loop_dtypes: a loop body
# traced 400 times asked NumPy the same question 400 times (a third of lowering's time)


def loop_dtypes(ufunc, operand_dtypes, out_dtype):
    """The dtypes NumPy's inner loop runs in: inputs are cast to these first."""
    key = (ufunc, tuple(operand_dtypes), out_dtype)
    got = _LOOPS.get(key, key)
    if got is not key:
        return got
    try:
        dts = ufunc.resolve_dtypes(tuple(operand_dtypes) + (None,) * ufunc.nout)
        # value-based casting chose another loop when the result differs
        got = [np.dtype(d) for d in dts[:ufunc.nin]] if np.dtype(dts[-1]) == out_dtype else None
    except Exception:
        got = None
    if len(_LOOPS) < 4096:
        _LOOPS[key] = got
    return got


def _value_based(uf, ops, args, loop, out_dtype):
    """NumPy 1.x casts a Python number by its value: float32 compared with 16777217 (no
    float32 holds it) runs in float64. resolve_dtypes takes the number as weak, and a
    comparison's result (bool) does not show the loop it ran in: the loop is NumPy's
    result_type of the operands, the number itself among them, where every input of
    the loop has one dtype and an operand is an array (0-d operands all: another rule)."""
    if len(set(loop)) != 1 or not any(o.kind == "const" and o.dtype is None for o in ops) or \
            all(o.shape == () for o in ops if not (o.kind == "const" and o.dtype is None)):
        return loop
    vals = [a if o.kind == "const" and o.dtype is None else _nb.empty((0,), o.dtype)
            for o, a in zip(ops, args)]
    try:
        common = np.result_type(*vals)
    except TypeError:
        return None
    if common == loop[0]:
        return loop
    return loop_dtypes(uf, [common] * len(loop), out_dtype)


def _whole(key, shape):
    """Does this key select the whole array, as the same shape (`x[:]`, `x[...]`)?"""
    if key is calls.NOKEY or key is Ellipsis:
        return True
    if type(key) is slice:
        key = (key,)
    if type(key) is not tuple or len(key) > len(shape):
        return False
    return all(type(k) is slice and k == slice(None) or k is Ellipsis for k in key) and \
        sum(k is Ellipsis for k in key) <= 1


def _other_layout(base, c_order):
    """Is an update's base the caller's array in a layout other than C order, which the
    version written back must keep (a kernel writes C order)?"""
    return not c_order and base.is_leaf and not getattr(
        getattr(base, "value", None), "flags", np.ones(1).flags).c_contiguous


class _Call:
    """A ufunc call as _ufunc reads a node: its function, arguments and result."""
    __slots__ = ("fn", "args", "kwargs", "shape", "dtype")

    def __init__(self, fn, args, shape, dtype):
        self.fn, self.args, self.kwargs, self.shape, self.dtype = fn, args, None, shape, dtype


class Lowering:
    """Graph nodes -> Expr, given the Exprs of their inputs, in the dtype kinds the
    target renders (a complex node or operand elsewhere: None, a NumPy step)."""

    def __init__(self, kinds=KINDS, scans=False, gathers=False):
        self.kinds = kinds
        self.scans = scans    # the target's kernels compute scans (else NumPy steps)
        self.gathers = gathers  # and integer-array reads (else NumPy steps)

    def lower(self, node, ins):
        """Expr for `node` given Exprs of its inputs, or None if it runs in NumPy."""
        try:
            e = self._lower(node, ins)
            if e is not None and half.involved(node.dtype, ins):
                e = half.lowered(e, ins)
            return e
        except (_NotLowered, half.NotHalf):
            return None

    def _lower(self, node, ins):
        fn = node.fn
        if node.dtype is None or node.dtype.kind not in self.kinds or any(
                getattr(x, "dtype", None) is not None and x.dtype.kind not in self.kinds
                for x in ins):
            return None
        if fn in COMPLEX_PARTS and ins and ins[0].dtype.kind == "c":
            return Expr("pw", COMPLEX_PARTS[fn], [ins[0]], node.shape, node.dtype, node=node)
        if isinstance(fn, np.ufunc):
            return self._ufunc(node, fn, ins)
        if fn is operator.pow:
            return self._pow(node, ins)
        if fn is np.where:
            ops = self._operands(node, ins)
            if ops is None or node.kwargs:
                return None
            c, a, b = ops
            a, b = self._cast(a, node.dtype), self._cast(b, node.dtype)
            return Expr("pw", "where", [self._cast(c, np.bool_), a, b], node.shape, node.dtype, node=node)
        if fn is np.clip:
            ops = self._operands(node, ins)
            if ops is None or node.dtype.kind not in "iuf":
                return None
            if node.dtype.kind in "iu" and any(
                    o is not None and o.kind == "const" and isinstance(o.op, (int, np.integer))
                    and not np.iinfo(node.dtype).min <= o.op <= np.iinfo(node.dtype).max
                    for o in ops[1:]):
                # a bound no element of the dtype can hold (np.clip(uint8, -1, 1)): cast,
                # -1 would become 255; NumPy's own clip handles it
                return None
            x, lo, hi = (self._cast(o, node.dtype) if o is not None else None for o in ops)
            if x is None:
                return None
            if lo is not None:
                x = Expr("pw", "maximum", [x, lo], node.shape, node.dtype)
            if hi is not None:
                x = Expr("pw", "minimum", [x, hi], node.shape, node.dtype, node=node)
            return x
        if fn is calls.update:
            return self._update(node, ins)
        if fn is calls.astype:
            if ins[0].dtype.kind == "c" and node.dtype.kind in "iuf":
                return None   # NumPy's ComplexWarning, and its cast
            # float->int is compiled checked: a value whose truncation does not fit (or
            # NaN) makes the kernel report it, and the graph reruns in NumPy (C leaves
            # such casts undefined; NumPy's result depends on its loops).
            return Expr("cast", None, [ins[0]], node.shape, node.dtype, node=node)
        if fn is calls.copy:
            return Expr("cast", None, [ins[0]], node.shape, node.dtype, node=node)
        if fn in (np.zeros, np.ones, np.full) or getattr(fn, "__name__", "") in ("zeros", "ones", "full"):
            name = fn.__name__
            if name == "full":
                value = node.args[1]
                if not isinstance(value, (int, float, bool, complex, np.generic)):
                    return None
            else:
                value = 0 if name == "zeros" else 1
            return Expr("const", np.asarray(value).astype(node.dtype)[()], [], node.shape,
                        node.dtype, node=node)
        name = getattr(fn, "__name__", "")
        red = REDUCTIONS.get(name)
        if red is not None and getattr(fn, "__module__", "").startswith("numpy"):
            return self._reduction(node, red.kernel, ins[0], node.kwargs or {})
        if name == "reduce" and isinstance(getattr(fn, "__self__", None), np.ufunc):
            op = UFUNC_REDUCTIONS.get(fn.__self__.__name__)
            kw = dict(node.kwargs or {})
            if op is None or "dtype" in kw:
                return None
            return self._reduction(node, op, ins[0], kw)
        if fn is np.concatenate:
            return self._concat(node, ins)
        if self.gathers and node.label == "gather" and fn is operator.getitem:
            return self._gather(node, ins)
        if self.scans and scan_ufunc(fn) is not None:
            return self._scan(node, scan_ufunc(fn), ins[0])
        if node.label in VIEW_LABELS and node.args and type(node.args[0]) is Ref:
            return self._view(node, ins[0])
        if fn is np.linalg.norm:
            kw = node.kwargs or {}
            axis = kw.get("axis")
            if axis is None:
                # NumPy's norm of a whole array is the square root of a BLAS dot of
                # it raveled (an order that depends on the BLAS build): NumPy's step.
                # Along an axis it is np.add.reduce of the squares, compiled below.
                return None
            vector = len(ins[0].shape) == 1 if axis is None else \
                type(axis) is not tuple or len(axis) == 1
            if kw.get("ord") not in (None, 2) or (kw.get("ord") == 2 and not vector):
                return None     # ord=2 of a matrix is its largest singular value
            x = self._cast(ins[0], node.dtype)
            sq = Expr("pw", "multiply", [x, x], x.shape, node.dtype)
            s = self._reduce("sum", sq, kw.get("axis"), kw.get("keepdims", False), node.dtype)
            return Expr("pw", "sqrt", [s], node.shape, node.dtype, node=node)
        return None

    # ----- helpers -------------------------------------------------------------------
    def _operands(self, node, ins):
        """Each argument of the call as an Expr (constants as const)."""
        return self._operands_of(node.args, ins)

    def _operands_of(self, args, ins):
        """Each of `args` (Refs into ins, constants, None) as an Expr, const or None;
        None if one is anything else."""
        out = []
        for a in args:
            if type(a) is Ref:
                out.append(ins[a.i])
            elif a is None:
                out.append(None)
            elif isinstance(a, (bool, int, float, complex, np.generic)):
                out.append(Expr("const", a, [], (), np.asarray(a).dtype if isinstance(a, np.generic) else None))
            else:
                return None
        return out

    def _cast(self, e, dtype):
        dtype = np.dtype(dtype)
        if e is None:
            return None
        if e.kind == "const" and (e.dtype is None or e.dtype != dtype):
            return Expr("const", e.op, [], e.shape, dtype)
        if e.dtype == dtype:
            return e
        if e.dtype.kind == "f" and dtype.kind in "iu" or e.dtype.kind == "c" and dtype.kind in "iuf":
            # complex -> real: NumPy warns (ComplexWarning) and drops the imaginary part
            raise _NotLowered()
        return Expr("cast", None, [e], e.shape, dtype)

    def _ufunc(self, node, uf, ins):
        if uf.nout != 1 or uf.__name__ not in POINTWISE_UFUNCS or node.kwargs:
            return None
        ops = self._operands(node, ins)
        if ops is None or any(o is None for o in ops):
            return None
        dts = []
        for o, a in zip(ops, node.args):
            if o.kind == "const" and o.dtype is None:
                dts.append(type(a) if not isinstance(a, bool) else bool)
            else:
                dts.append(o.dtype)
        loop = loop_dtypes(uf, dts, node.dtype)
        if loop is not None and not NUMPY2:
            loop = _value_based(uf, ops, node.args, loop, node.dtype)
        if loop is None or any(d.kind not in self.kinds for d in loop):
            return None
        if loop[0].kind == "c" and uf.__name__ not in COMPLEX_UFUNCS:
            return None
        if len({d.kind for d in loop if d.kind in "iu"}) > 1:
            # NumPy 2 compares uint64 with int64 exactly, in a mixed loop; C would turn
            # the signed side unsigned (-1 >= 2**64 - 1): NumPy's own comparison
            # (fuzzer seed 9805264, under NumPy 2)
            return None
        name = uf.__name__
        # integer power: a negative exponent (NumPy raises) makes the kernel report it
        # and the graph reruns in NumPy, which raises
        if name in ("reciprocal",) and loop[0].kind in "iu":
            return None
        for o, a, d in zip(ops, node.args, loop):
            if o.kind == "const" and o.dtype is None and d.kind in "iu" and isinstance(a, int):
                info = np.iinfo(d)
                if not info.min <= a <= info.max:
                    return None  # NumPy's promotion of an out-of-range int: leave it to NumPy
        try:
            cast = [self._cast(o, d) for o, d in zip(ops, loop)]
        except _NotLowered:
            return None
        e = Expr("pw", "true_divide" if name == "divide" else name, cast, node.shape,
                 node.dtype, node=node)
        return e

    def _update(self, node, ins):
        """A write to the whole of an array (`y += a * x`, `np.add(a, b, out=y)`, `x[:] =
        v`, `x.fill(0)`) is the array's next value computed pointwise: it fuses with what
        computes its operands and with its readers, where as a NumPy step it cut the
        kernel in two and cost a step of its own per loop iteration (a leapfrog step
        `v += dt * a; x += dt * v` was 4 steps, 5.5x slower than NumPy on 100 elements).
        A write to a box of at least half the array is the same, pasted into the old
        value (fusion/paste.py); smaller parts, and other keys, stay NumPy's."""
        _, chain, key, fn, kw, c_order = node.args[:6]
        if type(key) is Ref and not chain and not kw and fn is None:
            return self._masked_fill(node, ins, key, c_order)
        if kw or type(key) is Ref:
            return None
        box = None
        if chain or not _whole(key, node.shape):
            box = paste.box_of(node.shape, node.dtype, chain, key)
            if box is None:
                return None
        if _other_layout(node.inputs[0], c_order):
            return None   # the caller's array in another layout: the version keeps it
        ops = self._operands_of(node.args[6:], ins)
        if ops is None or any(o is None for o in ops):
            return None
        shape = node.shape if box is None else box[1]
        v = self._written_value(node, ins, ops, fn, shape)
        if v is None or box is None:
            return v
        return paste.paste(ins[0], v, *box, node.shape, node.dtype, node)

    def _written_value(self, node, ins, ops, fn, shape):
        """What an update writes into its region of `shape`, in the array's dtype: the
        value assigned, or fn of the operands (a ufunc's out=, x += y)."""
        if fn is None:    # assignment: NumPy's unsafe cast of the value, broadcast
            if len(ops) != 1:
                return None
            v = self._cast(ops[0], node.dtype)
            if v.kind == "const":
                return Expr("const", v.op, [], shape, node.dtype, node=node)
            if v.shape != shape and shape == node.shape:
                return None     # (into a box, fusion/paste broadcasts the value)
            return Expr("cast", None, [v], v.shape, node.dtype, node=node)
        if not isinstance(fn, np.ufunc) or fn.nout != 1 or fn.nin != len(ops) or \
                fn.__name__ not in POINTWISE_UFUNCS:
            return None
        args = node.args[6:]
        dts = [(type(a) if not isinstance(a, bool) else bool) if o.kind == "const" and
               o.dtype is None else o.dtype for o, a in zip(ops, args)]
        if all(o.kind == "const" and o.dtype is None for o in ops):
            return None   # out= decides the loop of Python numbers alone
        try:   # the loop NumPy runs: out= does not choose it, the result is cast
            natural = np.dtype(fn.resolve_dtypes(tuple(dts) + (None,))[-1])
            if not NUMPY2 and all(o.shape == () for o in ops if not (
                    o.kind == "const" and o.dtype is None)):
                # NumPy 1.x with 0-d operands and Python numbers: the number's own dtype
                # promotes (a 0-d float16 `c -= 2**40` runs in float64: inf, not inf -
                # inf; the fuzzer's seed 5987868), where resolve_dtypes takes it weakly
                natural = np.result_type(*[a if o.kind == "const" and o.dtype is None else
                                           _nb.zeros((), o.dtype) for o, a in zip(ops, args)])
        except Exception:
            return None
        pseudo = _Call(fn, args, shape, natural)
        e = self._ufunc(pseudo, fn, {i: ins[i] for i in range(len(ins))})
        if e is None:
            return None
        e.node = node     # its line, in the kernel's comments
        return self._cast(e, node.dtype) if e.dtype != node.dtype else e

    def _masked_fill(self, node, ins, key, c_order):
        """`x[mask] = v` with a mask of x's shape and one value (a number, a 0-d array):
        the array's next value is np.where(mask, v, x), computed pointwise (a clip or a
        reset of the elements past a threshold; it was a NumPy step between kernels).
        A float number into an integer array is NumPy's (NaN raises there)."""
        mask = ins[key.i]
        if mask.dtype != np.bool_ or tuple(mask.shape) != tuple(node.shape) or \
                _other_layout(node.inputs[0], c_order):
            return None
        ops = self._operands_of(node.args[6:], ins)
        if ops is None or len(ops) != 1 or ops[0] is None or ops[0].shape != ():
            return None
        v = ops[0]
        if v.kind == "const" and node.dtype.kind in "iub" and (
                not isinstance(v.op, (bool, int, np.integer, np.bool_)) or
                (node.dtype.kind in "iu" and not
                 np.iinfo(node.dtype).min <= int(v.op) <= np.iinfo(node.dtype).max)):
            return None     # (-3 into uint8: NumPy 2 raises OverflowError, 1.x wraps)
        try:
            v = self._cast(v, node.dtype)
        except _NotLowered:
            return None
        return Expr("pw", "where", [mask, v, ins[0]], node.shape, node.dtype, node=node)

    def _pow(self, node, ins):
        x = ins[0]
        p = node.args[1]
        if not isinstance(p, (int, float)) or isinstance(p, bool) or x.dtype.kind not in "iufc":
            return None
        if x.dtype.kind in "fc" and node.dtype == x.dtype:
            # ndarray.__pow__'s fast paths for float and complex arrays (the only complex
            # powers the kernels take: NumPy's complex power has its own algorithm)
            table = {2.0: "square", 0.5: "sqrt", -1.0: "reciprocal", 1.0: "positive"}
            if p in table:
                return Expr("pw", table[p], [x], node.shape, node.dtype, node=node)
            if x.dtype.kind == "c":
                return None
            return Expr("pw", "power", [x, Expr("const", p, [], (), node.dtype)], node.shape,
                        node.dtype, node=node)
        if x.dtype.kind in "iu" and p == 2 and node.dtype == x.dtype:
            return Expr("pw", "square", [x], node.shape, node.dtype, node=node)
        if x.dtype.kind in "iu" and isinstance(p, int) and 0 <= p <= np.iinfo(x.dtype).max \
                and node.dtype == x.dtype:
            return Expr("pw", "power", [x, Expr("const", p, [], (), node.dtype)], node.shape,
                        node.dtype, node=node)
        return None

    def _view(self, node, x):
        """The view as index arithmetic: base index b = start_b + sum_d step_bd * i_d.
        NumPy applies the view to a stand-in of x's shape whose strides count elements;
        the stand-in's offset and strides are the map. A view that merges dimensions
        (a reshape) has no such map and stays NumPy's (x is written first)."""
        m = view_map(x.shape, lambda a: node.fn(a, *node.args[1:], **(node.kwargs or {})))
        if m is None or m[0] != node.shape:
            return None
        return Expr("view", None, [x], node.shape, node.dtype, {"map": m[1]}, node=node)

    def _concat(self, node, ins):
        kw = node.kwargs or {}
        axis = kw.get("axis", 0)
        if axis is None or not ins or len(node.shape) == 0:
            return None   # axis=None flattens first: NumPy does it
        axis = operator.index(axis) % len(node.shape)
        pieces = [self._cast(x, node.dtype) for x in ins if x.shape[axis] != 0]
        if not pieces or len(pieces) > MAX_CONCAT_PIECES:
            return None
        if len(pieces) == 1:
            return Expr("cast", None, pieces, node.shape, node.dtype, node=node)
        return Expr("concat", None, pieces, node.shape, node.dtype, {"axis": axis}, node=node)

    def _gather(self, node, ins):
        """x[i, j] with integer index arrays (and full slices, and ints): each element
        of the result reads x at the index arrays' values there, NumPy's negative
        indices counted from the end. An index out of range sets the kernel's flag and
        the graph reruns in NumPy, which raises its IndexError. attrs: per axis of x,
        ("a", k) the k-th index array, ("i", c) the int c, ("s", d) the result's axis d;
        "block": the result's axes the index arrays broadcast over (NumPy puts them in
        place when the array indices are adjacent, else first)."""
        key = node.args[1]
        x = ins[0]
        items = []
        for it in (key if type(key) is tuple else (key,)):
            if it is Ellipsis:
                if Ellipsis in items:
                    return None
                items.append(Ellipsis)
            elif type(it) is Ref or type(it) is int or (
                    type(it) is slice and it == slice(None)):
                items.append(it)
            else:
                return None     # None, partial slices: NumPy's step
        if Ellipsis in items:
            at = items.index(Ellipsis)
            items[at:at + 1] = [slice(None)] * (len(x.shape) - len(items) + 1)
        items += [slice(None)] * (len(x.shape) - len(items))
        if len(items) != len(x.shape) or x.kind != "load":
            return None
        arrays = [ins[it.i] for it in items if type(it) is Ref]
        if not arrays or any(a.dtype.kind not in "iu" or
                             (a.dtype.kind == "u" and a.dtype.itemsize == 8) for a in arrays):
            return None
        adv = [d for d, it in enumerate(items) if type(it) is not slice]
        try:
            block = np.broadcast_shapes(*(a.shape for a in arrays))
        except ValueError:
            return None
        adjacent = adv == list(range(adv[0], adv[-1] + 1))
        first = adv[0] if adjacent else 0
        sliced = iter([d for d in range(len(node.shape))
                       if not first <= d < first + len(block)])
        axes, index = [], []
        for d, it in enumerate(items):
            if type(it) is slice:
                axes.append(("s", next(sliced)))
            elif type(it) is int:
                n = x.shape[d]
                if not -n <= it < n:
                    return None     # NumPy's IndexError, at its step
                axes.append(("i", it % n))
            else:
                axes.append(("a", len(index)))
                index.append(ins[it.i])
        if first + len(block) > len(node.shape) or tuple(
                node.shape[first:first + len(block)]) != tuple(block):
            return None
        return Expr("gather", None, [x] + index, node.shape, node.dtype,
                    {"axes": tuple(axes), "block": (first, len(block))}, node=node)

    def _scan(self, node, op, x):
        """np.cumsum / np.cumprod / ufunc.accumulate: the input cast to the result dtype
        (NumPy's: cumsum of int32 or bool is the platform int, or dtype=), then op applied
        in order in that dtype, where NumPy's loop for op is that dtype throughout."""
        dt = node.dtype
        if any(d.kind not in "biuf" or (d.kind == "f" and d.itemsize < 4) for d in (dt, x.dtype)) \
                or loop_dtypes(getattr(np, op), [dt, dt], dt) != [dt, dt]:
            return None
        axis = (node.kwargs or {}).get("axis")
        attrs = {"axis": 0 if axis is None else axis, "flat": axis is None and len(x.shape) != 1}
        return Expr("scan", op, [self._cast(x, dt)], node.shape, dt, attrs, node=node)

    def _reduce(self, op, x, axis, keepdims, acc_dtype):
        nd = len(x.shape)
        if axis is None:
            axes = tuple(range(nd))
        else:
            axes = tuple(sorted(a % nd for a in (axis if isinstance(axis, tuple) else (axis,))))
        shape = tuple(1 if i in axes else d for i, d in enumerate(x.shape)) if keepdims else \
            tuple(d for i, d in enumerate(x.shape) if i not in axes)
        dtype = np.dtype(np.int64) if op in ("argmin", "argmax") else (
            np.dtype(bool) if op in ("any", "all") else np.dtype(acc_dtype))
        return Expr("reduce", op, [x], shape, dtype, {"axes": axes, "keepdims": bool(keepdims)})

    def _reduction(self, node, op, x, kw):
        kw = dict(kw)
        axis = kw.pop("axis", None)
        keepdims = kw.pop("keepdims", False)
        ddof = kw.pop("ddof", 0)
        kw.pop("dtype", None)
        if kw:
            return None
        if op in ("argmin", "argmax") and axis is None and len(x.shape) > 1:
            return None  # a flat index over several axes: NumPy does it
        nd = len(x.shape)
        axes = tuple(range(nd)) if axis is None else tuple(
            sorted(a % nd for a in (axis if isinstance(axis, tuple) else (axis,))))
        count = 1
        for a in axes:
            count *= x.shape[a]
        if "c" in (x.dtype.kind, node.dtype.kind):
            return self._complex_reduction(node, op, x, axis, keepdims, count)
        if op in ("sum", "prod", "min", "max", "any", "all", "argmin", "argmax"):
            if op in ("min", "max", "argmin", "argmax") and count == 0:
                return None
            acc = node.dtype
            src = x if op in ("min", "max", "argmin", "argmax", "any", "all") else self._cast(x, acc)
            r = self._reduce(op, src, axis, keepdims, acc)
            r.node = node
            if r.dtype != node.dtype:
                r = Expr("cast", None, [r], r.shape, node.dtype, node=node)
            return r
        if count == 0:
            return None
        # mean, var, std in the result's float type (NumPy: float64 for integer input)
        fdt = node.dtype
        if fdt.kind != "f":
            if op != "mean" or fdt.kind not in "iu":
                return None   # var/std with an integer dtype=: NumPy's own steps
            # mean(dtype=int64): NumPy sums in the integer type (wrapping), divides in
            # float64 and casts back (checked, as astype); an exact integer division
            # gave -2**61 + 25 where NumPy gives -2**61 (fuzzer seed 9600077)
            s2 = self._reduce("sum", self._cast(x, fdt), axis, keepdims, fdt)
            f64 = np.dtype(np.float64)
            q = Expr("pw", "true_divide", [Expr("cast", None, [s2], s2.shape, f64),
                                           Expr("const", float(count), [], (), f64)],
                     s2.shape, f64)
            return Expr("cast", None, [q], q.shape, fdt, node=node)
        xf = self._cast(x, fdt)
        n = Expr("const", float(count), [], (), fdt)
        s = self._reduce("sum", xf, axis, True, fdt)
        mean_k = Expr("pw", "true_divide", [s, n], s.shape, fdt)
        if op == "mean":
            s2 = self._reduce("sum", xf, axis, keepdims, fdt)
            return Expr("pw", "true_divide", [s2, n], s2.shape, fdt, node=node)
        # NumPy's _var: the deviations `arr - mean` in the promoted type of the two
        # (float64 for a float64 or int64 array with dtype=float32), squared there, and
        # summed in dtype: a float64 deviation cast after squaring, not before (one
        # float64 element with dtype=float32 has variance (x - float32(x))**2, not 0)
        dev = np.result_type(x.dtype, fdt)
        d = Expr("pw", "subtract", [self._cast(x, dev), self._cast(mean_k, dev)], x.shape, dev)
        sq = Expr("pw", "multiply", [d, d], x.shape, dev)
        ss = self._reduce("sum", self._cast(sq, fdt), axis, keepdims, fdt)
        denom = Expr("const", float(max(count - ddof, 0)), [], (), fdt)
        var = Expr("pw", "true_divide", [ss, denom], ss.shape, fdt, node=node if op == "var" else None)
        if op == "var":
            return var
        return Expr("pw", "sqrt", [var], var.shape, fdt, node=node)

    def _complex_reduction(self, node, op, x, axis, keepdims, count):
        """A complex sum or mean (the kernels sum the two parts as float sums are
        summed); the mean divides by the count as NumPy does, in complex division.
        Other reductions of complex numbers (prod, min, max: NumPy's lexicographic
        order) are NumPy's."""
        if op not in ("sum", "mean") or node.dtype.kind != "c" or (op == "mean" and count == 0):
            return None
        s = self._reduce("sum", self._cast(x, node.dtype), axis, keepdims, node.dtype)
        if op == "sum":
            s.node = node
            return s
        n = Expr("const", complex(count), [], (), node.dtype)
        return Expr("pw", "true_divide", [s, n], s.shape, node.dtype, node=node)


class _NotLowered(Exception):
    pass


def top_reduces(roots):
    """The reductions of a kernel that no other reduction contains, in first-use order
    (what a schedule splits or runs per block; a reduction over a reduction stays
    inside its outer one)."""
    out, seen, stack = [], set(), list(reversed(roots))
    while stack:                       # depth first, left to right, without recursion
        e = stack.pop()
        if id(e) in seen:
            continue
        seen.add(id(e))
        if e.kind == "reduce":
            out.append(e)
            continue
        stack.extend(reversed(e.inputs))
    return out


def scanned_axes(roots):
    """The axes along which some scan of these expressions runs (the calls of a kernel
    computing them must not split those: backends/cpu.py)."""
    axes, seen, stack = set(), set(), list(roots)
    while stack:
        e = stack.pop()
        if id(e) in seen:
            continue
        seen.add(id(e))
        if e.kind == "scan":
            axes.add(e.attrs["axis"])
        stack.extend(e.inputs)
    return axes
