"""In-place writes (x += y, x[k] = v, out=, fill, ufunc.at, np.fill_diagonal) as new
versions of a storage."""
import math

import numpy as np

from ..graph import calls
from ..graph.node import Node, Ref
from .breaks import user_site
from .. import np_base as _nb
from .operands import Operands, Unsupported, as_lazy
from . import lazy_array as _la
from .view_rules import _bool_index, _index_array, indexed, split_key
from .masked_select import mask_over, written


def _shift(template, by):
    return tuple(Ref(t.i + by) if type(t) is Ref else t for t in template)


def _check_writable(lz):
    if lz._scalar:
        raise TypeError(f"'{lz.dtype.type.__name__}' object does not support item assignment")
    fake = lz._get_fake()
    if not fake.flags.writeable:
        raise ValueError("assignment destination is read-only")
    st = lz._st
    if st.aliased or st.guessed:
        raise Unsupported("alias", "in-place update of memory that another traced array shares")


def _write(tracer, lz, key, fn, kw, template, inputs, label):
    """New base = update(old base, lz's view chain, key, fn, operands); template's Refs
    index `inputs` and are shifted past the base."""
    st = lz._st
    base = st.base
    c_order = not st.fake_is_real
    if type(key) is Ref:
        key = Ref(key.i + 1)
    args = (Ref(0), lz._chain, key, fn, kw, c_order) + _shift(template, 1)
    node = Node(calls.update, args, None, (base,) + tuple(inputs), base.dtype, base.shape,
                label, user_site())
    tracer.note_op(label)
    st.write(node)
    tracer.note_write(st)


def write_ufunc(tracer, out, ufunc, ops, kw, where=None):
    """ufunc(..., out=out), and with where= a mask: NumPy's call writes the elements
    where it holds and leaves the others (`np.divide(a, b, out=r, where=b != 0)`)."""
    _check_writable(out)
    kw, inputs = _masked(kw, ops.inputs, where)
    _write(tracer, out, calls.NOKEY, ufunc, kw, ops.template, inputs,
           f"{ufunc.__name__} (in place)")


def _masked(kw, inputs, where):
    """A write's keywords and operands with where= the mask (None: no mask): a Ref past
    the base, as _write's operands count."""
    if where is None:
        return kw, inputs
    return dict(kw, where=Ref(len(inputs) + 1)), tuple(inputs) + (where._n,)


def copyto(tracer, fn, dst, src, casting="same_kind", where=True):
    """np.copyto(dst, src, casting=, where=): NumPy's own call writes dst's next
    version. Its refusals (a cast the casting rule forbids, shapes that do not
    broadcast) are asked of it on one-element stand-ins, and checked on the shapes."""
    if type(dst) is not _la.LazyArray:
        raise Unsupported("inplace_untraced", "np.copyto into an untraced array")
    _check_writable(dst)
    ops = _value_into(tracer, src, dst.shape, "could not broadcast input array from "
                                              "shape {} into shape {}")
    mask = None
    if where is not True:
        mask = as_lazy(tracer, where)
        if mask.dtype != np.bool_ or np.broadcast_shapes(mask.shape, dst.shape) != dst.shape:
            raise Unsupported("error", "np.copyto(where=): a mask NumPy would refuse")
    probe = src if not ops.inputs else _nb.ones((1,) * len(ops.shapes[0]), ops.inputs[0].dtype)
    try:
        np.copyto(_nb.zeros((1,) * dst.ndim, dst.dtype), probe, casting=casting)
    except Exception as e:
        raise Unsupported("error", f"np.copyto: {e}")
    kw, inputs = _masked({"casting": casting}, ops.inputs, mask)
    _write(tracer, dst, calls.NOKEY, calls.in_place(np.copyto, "np.copyto"), kw, ops.template,
           inputs, "copyto")


def put(tracer, fn, a, ind, v, mode="raise"):
    """np.put(a, ind, v): NumPy's flat write of a's next version (indices known now are
    checked now, as NumPy raises at the call)."""
    if type(a) is not _la.LazyArray:
        raise Unsupported("inplace_untraced", "np.put into an untraced array")
    _check_writable(a)
    if mode not in ("raise", "wrap", "clip"):
        raise Unsupported("error", f"np.put: mode {mode!r}")
    if type(ind) is not _la.LazyArray:
        known = _nb.asarray(ind)
        if known.dtype.kind not in "iu" or (mode == "raise" and known.size and (
                known.min() < -a.size or known.max() >= a.size)):
            raise Unsupported("error", "np.put: indices NumPy refuses")
    ops = Operands(tracer, [ind, v])
    _write(tracer, a, calls.NOKEY, calls.in_place(np.put, "np.put"), {"mode": mode},
           ops.template, ops.inputs, "put")


def _as_assigned(lz, value):
    """The value NumPy writes for a float or complex scalar assigned into an integer
    array: it converts a scalar as a Python number, not as an array cast (inf is an
    OverflowError, NaN a ValueError, 1e20 'Python int too large'; under NumPy 2 a
    negative into an unsigned array is out of bounds, where 1.x wrapped it), and a bool
    array holds whether it is nonzero (a fill with inf wrote the int64 cast). Asked of
    NumPy on one element, so that both versions answer for themselves; its error is
    raised by NumPy's own write, where the graph breaks. A float scalar computed in the
    trace has no value yet: that write is NumPy's too."""
    if lz.dtype.kind not in "iub":
        return value
    if type(value) is _la.LazyArray:
        if value._scalar and value.dtype.kind in "fc" and lz.dtype.kind != "b":
            raise Unsupported("unsupported", "a float scalar written into an integer array "
                                             "(NumPy converts it as a Python number)")
        return value
    if (type(value) is int or isinstance(value, np.integer)) and lz.dtype.kind in "iu":
        # a Python int that the dtype cannot hold (`a[:] = 300` of int8): NumPy 2's
        # OverflowError, NumPy 1's DeprecationWarning and wrapped value, asked of NumPy
        # (the graph's cast wrapped it silently). A NumPy integer scalar too: NumPy 2
        # writes it as a Python int (`c[::2] = np.abs(2**53 + 1)` into int16 raised
        # there, where the graph's cast wrapped it)
        info = np.iinfo(lz.dtype)
        if info.min <= int(value) <= info.max:
            return value
    elif not isinstance(value, (float, complex, np.floating, np.complexfloating)):
        return value
    probe = _nb.zeros(1, lz.dtype)
    try:
        probe[0] = value
    except Exception as e:   # noqa: BLE001 - NumPy's error, raised again by NumPy
        raise Unsupported("error", f"{type(e).__name__}: {e}")
    return probe[0]


def setitem(tracer, lz, key, value):
    _check_writable(lz)
    value = _as_assigned(lz, value)
    try:
        basic, mask, lead = split_key(tracer, lz, key)
    except Unsupported as u:
        items = key if type(key) is tuple else (key,)
        if u.kind not in ("unsupported", "number") or \
                not any(_index_array(x) for x in items) or any(_bool_index(x) for x in items):
            raise
        return scatter(tracer, lz, items, value)
    if getattr(type(value), "_npc_selected", False):   # an x[mask] kept lazy
        new = written(lz, mask, lead, value) if mask is not None else None
        if new is not None:   # x[mask] = f(x[mask]): x[...] = np.where(mask, f(x), x)
            ops = Operands(tracer, [new])
            _write(tracer, lz, calls.NOKEY, None, None, ops.template, ops.inputs,
                   "setitem[mask]")
            return
        value = value.materialize()
    if mask is not None and (lead or mask.shape != lz.shape):
        # A[m] = v of rows, X[:, m] = 0: np.where over the whole array
        new = _masked_where(lz, mask, lead, value)
        ops = Operands(tracer, [new])
        _write(tracer, lz, calls.NOKEY, None, None, ops.template, ops.inputs, "setitem[mask]")
        return
    if mask is not None:
        # x[mask] = scalar: a masked write with a static shape.
        if not isinstance(value, (bool, int, float, np.generic)) and not (
                type(value) is _la.LazyArray and value.ndim == 0):
            raise Unsupported("data_shape", "x[mask] = array: the number of written elements "
                                            "depends on the data")
        if mask.shape != lz.shape:
            raise Unsupported("error", "boolean index does not match the array's shape")
        ops = Operands(tracer, [mask, value])
        _write(tracer, lz, ops.template[0], None, None, ops.template[1:], ops.inputs,
               "setitem[mask]")
        return
    region = lz._get_fake()[basic]
    rshape = np.shape(region)
    if type(value) is _la.LazyArray and value._st is lz._st and value._ver == lz._st.version:
        steps = value._chain
        mine = lz._chain
        if (len(steps) == len(mine) + 1 and all(a.same_as(b) for a, b in zip(steps, mine))
                and steps[-1].label == "getitem" and steps[-1].args == (basic,)):
            return  # x[k] op= y: the view was already updated in place
    ops = _value_into(tracer, value, rshape, "could not broadcast input array from shape "
                                             "{} into shape {}")
    _write(tracer, lz, basic, None, None, ops.template, ops.inputs, "setitem")


def _masked_where(lz, mask, lead, value):
    """`lz[..., mask, ...] = value` (the mask's axes from `lead` on, the others whole) as
    np.where(mask, value, lz), where that is NumPy's write whatever the mask holds: a
    value that broadcasts against the axes after the mask's alone (a scalar, a row for
    rows selected), cast to lz's dtype as NumPy's assignment casts it."""
    trail = lz.ndim - lead - mask.ndim
    if mask.shape != lz.shape[lead:lead + mask.ndim]:
        raise Unsupported("error", "boolean index did not match the indexed array")
    if isinstance(value, (bool, int, float, np.generic)):
        vdt, kind = np.asarray(value).dtype, lz.dtype.kind
        if kind in "iu" and vdt.kind in "iuf":
            # NumPy's assignment truncates a float; NaN, inf and numbers out of the
            # dtype's range are its errors (or warnings): NumPy's own call
            if not math.isfinite(value) or \
                    not np.iinfo(lz.dtype).min <= int(value) <= np.iinfo(lz.dtype).max:
                raise Unsupported("unsupported", "x[mask] = a number out of the dtype's range")
            v = lz.dtype.type(int(value))
        elif np.can_cast(vdt, lz.dtype, "same_kind") or \
                (type(value) in (bool, int, float) and kind in "fc"):
            v = lz.dtype.type(value)
        else:
            raise Unsupported("unsupported", "x[mask] = a value of another kind")
    else:
        if type(value) is not _la.LazyArray and type(value) is not np.ndarray:
            raise Unsupported("unsupported", "x[mask] = a value that is not an array")
        tail = lz.shape[lz.ndim - trail:] if trail else ()
        if value.ndim > trail or not np.can_cast(value.dtype, lz.dtype, "same_kind"):
            raise Unsupported("data_shape", "x[mask] = array: the number of written "
                                            "elements depends on the data")
        try:
            if np.broadcast_shapes(value.shape, tail) != tail:
                raise ValueError
        except ValueError:
            raise Unsupported("error", "x[mask] = array: shapes that do not broadcast")
        v = value if value.dtype == lz.dtype else value.astype(lz.dtype)
    return np.where(mask_over(mask, lead, lz.ndim), v, lz)


def _value_into(tracer, value, rshape, message):
    """The assigned value's operands, where its shape broadcasts to the written region's
    (else NumPy's ValueError: `message` with both shapes)."""
    ops = Operands(tracer, [value])
    vshape = ops.shapes[0] if ops.shapes else ()
    try:
        if np.broadcast_shapes(vshape, rshape) != rshape:
            raise ValueError
    except ValueError:
        raise Unsupported("error", message.format(vshape, rshape))
    return ops


def scatter(tracer, lz, items, value):
    """`x[idx] = v` with integer index arrays (row swaps `A[[k, p]] = A[[p, k]]`, a
    permutation's `perm[[i, j]] = perm[[j, i]]`, `x[idx] = 0`): a new version of x,
    NumPy's own assignment run as a step (a repeated index: the last write wins; an
    index out of range: its IndexError). The value is read before the write, as NumPy
    evaluates it first."""
    if getattr(type(value), "_npc_selected", False):
        value = value.materialize()
    template, indices, rshape = indexed(tracer, lz, items, 1)
    ops = _value_into(tracer, value, rshape, "shape mismatch: value array of shape {} could "
                                             "not be broadcast to indexing result of shape {}")
    _write(tracer, lz, calls.NOKEY, calls.in_place(_assign_at, "setitem[index]"),
           {"key": tuple(_AT if type(k) is Ref else k for k in template)},
           tuple(Ref(i) for i in range(len(indices))) + _shift(ops.template, len(indices)),
           tuple(ix._n for ix in indices) + tuple(ops.inputs), "setitem[index]")


def _assign_at(region, *operands, key):
    """region[key] = value: each _AT of key is the next index array among the operands,
    which the value ends."""
    arrays = iter(operands[:-1])
    region[tuple(next(arrays) if k == _AT else k for k in key)] = operands[-1]


_AT = "index array"     # no NumPy index is a str: a slot of the key, filled at run time


def fill(tracer, lz, value):
    _check_writable(lz)
    if not isinstance(value, (bool, int, float, complex, np.generic)):
        raise Unsupported("unsupported", "fill() with a non-scalar")
    value = _as_assigned(lz, value)
    ops = Operands(tracer, [value])
    _write(tracer, lz, calls.NOKEY, None, None, ops.template, ops.inputs, "fill")


def write_ipow(tracer, lz, exponent):
    """`x **= scalar`: ndarray's in-place fast paths, replayed by update()."""
    import operator
    _check_writable(lz)
    try:
        p = _nb.zeros((0,) if lz.ndim else (), lz.dtype)
        with np.errstate(all="ignore"):
            operator.ipow(p, exponent)
    except Exception as e:
        raise Unsupported("error", f"**=: {e}")
    _write(tracer, lz, calls.NOKEY, operator.ipow, None, (exponent,), (), "power (in place)")


def ufunc_at(tracer, ufunc, a, indices, b=None):
    """`np.add.at(a, indices, b)`: a new version of a, NumPy's scatter run as a step of
    the graph (duplicate indices accumulate, an index out of range is NumPy's error)."""
    if type(a) is not _la.LazyArray:
        raise Unsupported("inplace_untraced", f"np.{ufunc.__name__}.at into an untraced array")
    if isinstance(indices, tuple):
        raise Unsupported("unsupported", f"np.{ufunc.__name__}.at with a tuple of indices")
    if (b is None) != (ufunc.nin == 1):
        raise Unsupported("error", f"np.{ufunc.__name__}.at: operands NumPy would refuse")
    _check_writable(a)
    ops = Operands(tracer, [indices] + ([] if b is None else [b]))
    at = ops.template[0]        # a Ref where the indices are an array, else a constant
    if type(at) is Ref and ops.inputs[at.i].dtype.kind not in "biu":
        raise Unsupported("error", "arrays used as indices must be of integer (or boolean) type")
    _write(tracer, a, calls.NOKEY, calls.ufunc_at(ufunc), {}, ops.template, ops.inputs,
           f"{ufunc.__name__}.at")


def fill_diagonal(tracer, fn, a, val, wrap=False):
    """np.fill_diagonal(a, val, wrap): a new version of a, NumPy's own function run on it
    as a step (values cast and repeated as its flat assignment does). Returns None."""
    if type(a) is not _la.LazyArray:
        raise Unsupported("inplace_untraced", "np.fill_diagonal into an untraced array")
    if a.ndim < 2:
        raise Unsupported("error", "array must be at least 2-d")
    if a.ndim > 2 and len(set(a.shape)) != 1:
        raise Unsupported("error", "All dimensions of input must be of equal length")
    _check_writable(a)
    ops = Operands(tracer, [val])
    _write(tracer, a, calls.NOKEY, calls.in_place(np.fill_diagonal, "np.fill_diagonal"),
           {"wrap": bool(wrap)}, ops.template, ops.inputs, "fill_diagonal")


TABLE = {np.fill_diagonal: fill_diagonal, np.copyto: copyto, np.put: put}
