"""Views: basic indexing, reshape, transpose and friends. A view is a step in a chain
from its storage's base, never a copy; its shape comes from applying the same step to
a metadata-only stand-in of the base (see graph/layout.fake_of)."""
import math
import operator

import numpy as np

from .. import np_base as _nb
from .operands import Unsupported
from ..graph import calls
from ..graph.view_step import ViewStep
from ..graph.node import Ref
from . import lazy_array as _la


def _basic_item(x):
    return x is None or x is Ellipsis or type(x) in (int, slice) or (
        isinstance(x, np.integer))


def split_key(tracer, lz, key):
    """(basic_key, mask, lead): a basic index tuple (mask None), or a boolean lazy mask
    for the axes from `lead` on, the axes before it and after it taken whole
    (`x[m]`, `A[m]` of rows, `X[:, freqs > fc]`, `A[m, :]`)."""
    items = key if type(key) is tuple else (key,)
    if all(_basic_item(x) for x in items):
        return tuple(int(x) if isinstance(x, np.integer) else x for x in items) \
            if type(key) is tuple else (int(key) if isinstance(key, np.integer) else key), \
            None, 0
    masks = [i for i, x in enumerate(items) if _bool_array(x)]
    if len(masks) == 1 and all(type(x) is slice and x == _WHOLE
                               for i, x in enumerate(items) if i != masks[0]):
        mask = items[masks[0]]
        if type(mask) is np.ndarray:
            lzm = tracer.wrap_constant_array(mask)   # the same leaf while its values stay
            tracer.mask_leaves[id(mask)] = (mask, lzm)
            mask = lzm
        return None, mask, masks[0]
    if any(type(x) is _la.LazyArray and x.ndim == 0 and x.dtype.kind in "iu" for x in items):
        raise Unsupported("number", "an array value used as an index")
    raise Unsupported("unsupported", "advanced (integer or boolean array) indexing")


_WHOLE = slice(None)


def _bool_array(x):
    return type(x) in (np.ndarray, _la.LazyArray) and x.dtype == bool and x.ndim > 0


def _view(tracer, lz, fn, args, kwargs, label, fake):
    step = ViewStep(fn, args, kwargs, label, fake.dtype, fake.shape)
    st = lz._st
    if not st.fake_is_real and fn in _MAY_COPY and not _one_layout(st.base):
        st.guessed = True  # numpy's own layout of a pending base decides copy vs view
    tracer.note_op(label)
    out = _la.LazyArray(st, lz._chain + (step,), None, False)
    out._fake = fake
    return tracer._register(out)


def _one_layout(base):
    """Is a pending base's layout known without NumPy: a ufunc's fresh result (contiguous
    in its inputs' axis order) with at most one axis longer than 1, the same memory in
    every axis order? (A Kalman filter's `xs[k] = x.ravel()` of its (2, 1) state ran
    every call on the reference path, which kept its loop from compiling once.) Or one
    of C-ordered operands, which NumPy makes C-contiguous (_c_result)."""
    return isinstance(getattr(base, "fn", None), np.ufunc) and \
        (sum(d != 1 for d in base.shape) <= 1 or _c_result(base, 0, {}))


# how deep _c_result follows a value's operands (each node asked once: memo)
_LAYOUT_DEPTH = 64
# creation functions whose arrays are C-contiguous (np.pad's constant edges are full)
_C_CREATIONS = frozenset(("zeros", "ones", "full", "empty", "arange", "linspace", "eye",
                          "identity"))


def _c_result(node, depth, memo):
    """Is this value C-contiguous, as NumPy will have it: a C-contiguous array given, a
    ufunc's result (order K) whose array operands are all C-ordered (_c_ordered), one of
    them of the result's shape (NumPy then orders the result's axes as theirs), or a
    concatenation of C-ordered pieces (np.pad's too). A layout guessed sends the graph
    to the reference path, op by op (otsu_morph_open's `fg.reshape(16, -1, 256)` after
    six erosions and dilations, each `b & p[:-2, 1:-1] & ...` of a padded p: 87 ops,
    every call, 5x slower than NumPy)."""
    if node.is_leaf:
        v = node.value
        return type(v) is np.ndarray and v.flags.c_contiguous
    got = memo.get(id(node))
    if got is not None:
        return got
    got = False
    if depth <= _LAYOUT_DEPTH:
        if isinstance(node.fn, np.ufunc) and node.fn.nout == 1 and \
                (node.kwargs or {}).get("order", "K") in ("K", "C", "A"):
            got = all(_c_ordered(x, depth + 1, memo) for x in node.inputs) and \
                any(tuple(x.shape) == tuple(node.shape) for x in node.inputs)
        elif node.fn is np.concatenate and node.inputs:
            got = all(_c_ordered(x, depth + 1, memo) for x in node.inputs)
        elif getattr(node.fn, "__name__", "") in _C_CREATIONS and \
                (node.kwargs or {}).get("order", "C") == "C":
            got = True      # np.full(...), np.zeros(...): C order unless asked otherwise
    memo[id(node)] = got
    return got


def _c_ordered(node, depth, memo):
    """Are this value's axes in C order in memory, strides falling from the first axis
    (C-contiguous, or a basic slice of such a value with steps forward)?"""
    if node.fn is operator.getitem and node.label == "getitem" and len(node.args) == 2:
        items = node.args[1] if type(node.args[1]) is tuple else (node.args[1],)
        if all(type(k) is int or k is None or k is Ellipsis or
               (type(k) is slice and (k.step is None or (type(k.step) is int and k.step > 0)))
               for k in items):
            return _c_ordered(node.inputs[0], depth + 1, memo)
        return False
    return _c_result(node, depth, memo)


def getitem(tracer, lz, key):
    try:
        basic, mask, lead = split_key(tracer, lz, key)
    except Unsupported as u:   # not basic: integer arrays gather, anything else breaks
        items = key if type(key) is tuple else (key,)
        if u.kind not in ("unsupported", "number") or \
                not any(_index_array(x) for x in items) or any(_bool_index(x) for x in items):
            raise
        return gather(tracer, lz, items)
    if mask is not None:   # a stand-in for NumPy's compact copy, or Unsupported
        from .masked_select import select
        return select(tracer, lz, mask, lead)
    items = basic if type(basic) is tuple else (basic,)
    shape = lz.shape
    if len(items) == len(shape) and all(type(x) is int for x in items):
        # One element: NumPy returns a scalar, a copy. Indexing the layout stand-in here
        # would read memory it does not have; a zero-strided one of the same shape raises
        # NumPy's own IndexError and reads only its one element.
        _pinned(lz.dtype, shape)[basic]
        return tracer.make(operator.getitem, (Ref(0), basic), None, (lz._n,), lz.dtype, (),
                           "getitem", scalar=True)
    r = lz._get_fake()[basic]  # a view: shape and strides only, no memory read
    return _view(tracer, lz, operator.getitem, (basic,), None, "getitem", r)


def _index_array(x):
    """An index array, or a traced integer (a 0-d value: `logB[:, obs[t]]` in an HMM's
    loop, which picked one graph per iteration by its value)."""
    return type(x) in (np.ndarray, list) or type(x) is _la.LazyArray and (
        x.ndim > 0 or x.dtype.kind in "iu")


def _bool_index(x):
    return type(x) is bool or (type(x) in (np.ndarray, _la.LazyArray) and x.dtype == bool) \
        or (type(x) is list and any(type(v) is bool for v in x))


def gather(tracer, lz, items):
    """Integer-array indexing (x[idx], A[rows, cols], z[np.arange(n), labels]): a copy
    whose shape follows from the index arrays' shapes alone, recorded as a NumPy step
    inside the graph (NumPy's values, and its IndexError for an index out of range, at
    run time) instead of a break."""
    template, inputs, shape = indexed(tracer, lz, items, 1)
    # one element (every index a traced integer): a NumPy scalar, as NumPy returns
    return tracer.make(operator.getitem, (Ref(0), tuple(template)), None,
                       (lz._n,) + tuple(ix._n for ix in inputs), lz.dtype, shape, "gather",
                       scalar=not shape)


def indexed(tracer, lz, items, first):
    """An integer-array index of lz (a read, gather, or a write, inplace.scatter):
    (key template whose Refs count from `first`, the index arrays as lazy arrays, the
    indexed region's shape). Indices known now are checked now: NumPy raises IndexError
    at the call, whether or not its result is used (a gather nobody reads never runs)."""
    template, inputs, protos = [], [], []
    for x in items:
        if _index_array(x):
            known = None if type(x) is _la.LazyArray else _index_list(tracer, x)
            if type(known) is _la.LazyArray:    # a list holding traced integers
                ix, known = known, None
            else:
                ix = x if known is None else tracer.wrap_constant_array(known)
            if ix.dtype.kind not in "iu" or (type(x) is list and ix.ndim != 1):
                raise Unsupported("unsupported", "advanced indexing with a non-integer "
                                                 "or nested index")
            template.append(Ref(len(inputs) + first))
            inputs.append(ix)
            protos.append(known if known is not None else _pinned(np.dtype(np.intp), ix.shape))
        elif _basic_item(x):
            template.append(int(x) if isinstance(x, np.integer) else x)
            protos.append(template[-1])
        else:
            raise Unsupported("unsupported", "advanced (integer or boolean array) indexing")
    try:  # the region's shape: only element 0 of the stand-in is read
        shape = _region_shape(lz, protos)
    except IndexError as e:
        raise Unsupported("error", str(e))
    return template, inputs, shape


# index arrays broadcasting to more elements than this get their region's shape from
# small stand-ins (see _region_shape)
_SMALL_REGION = 4096


def _region_shape(lz, protos):
    """The shape of lz[protos] (index arrays among basic items). NumPy's own indexing of a
    stand-in gives it, but materializes the whole region: a (256, 256) index into a
    lattice, 24 times per call, was half of a value-noise program's time. For large
    index arrays the broadcast block is found instead by indexing with stand-ins of
    shape (1,)*k and (2,)*k: the dimensions that change are the block, where NumPy puts it
    (in place, or first when the index arrays are apart), and the block is their
    broadcast shape. Index values (known lists: bounds) still go through NumPy in full."""
    pinned = _pinned(lz.dtype, lz.shape)
    arrays = [k for k, p in enumerate(protos) if type(p) is np.ndarray]
    try:
        block = np.broadcast_shapes(*(protos[k].shape for k in arrays))
    except ValueError:
        block = None
    if block is None or math.prod(block) <= _SMALL_REGION or 0 in block or len(block) > 4 \
            or any(protos[k].strides != (0,) * protos[k].ndim for k in arrays):
        return pinned[tuple(protos)].shape     # (NumPy's IndexError for a mismatch too)
    small = []
    for size in (1, 2):
        key = list(protos)
        for k in arrays:
            key[k] = _pinned(np.dtype(np.intp), (size,) * len(block))
        small.append(pinned[tuple(key)].shape)
    one, two = small
    at = [d for d in range(len(one)) if one[d] != two[d]]
    if len(at) != len(block) or at != list(range(at[0], at[0] + len(block))):
        return pinned[tuple(protos)].shape
    return one[:at[0]] + tuple(block) + one[at[-1] + 1:]


def _index_list(tracer, x):
    """An index given as a list or an ndarray: its values as an ndarray; a list that
    holds traced integers (`A[[k, p]]`, p an np.argmax): those stacked, a traced array
    (NumPy could not read them without a break)."""
    if type(x) is list and any(type(v) is _la.LazyArray for v in x):
        template, inputs, protos = [], [], []
        for v in x:
            if type(v) is _la.LazyArray:
                if v.ndim != 0 or v.dtype.kind not in "iu":
                    raise Unsupported("unsupported", "advanced indexing with a nested index")
                template.append(Ref(len(inputs)))
                inputs.append(v._n)
                protos.append(_nb.zeros((), v.dtype))
            elif isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)):
                template.append(v)
                protos.append(v)
            else:
                raise Unsupported("unsupported", "advanced indexing with a nested index")
        dtype = _nb.array(protos).dtype     # NumPy's array of the list
        return tracer.make(calls.array_of, tuple(template), None, tuple(inputs), dtype,
                           (len(x),), "index list")
    return _nb.asarray(x)


def item(tracer, lz, i):
    """lz[i] for 0 <= i < len(lz), as getitem records it (iteration: LazyArray.__iter__)."""
    if len(lz.shape) == 1:
        return tracer.make(operator.getitem, (Ref(0), i), None, (lz._n,), lz.dtype, (),
                           "getitem", scalar=True)
    return _view(tracer, lz, operator.getitem, (i,), None, "getitem", lz._get_fake()[i])


_one = {}


def _pinned(dtype, shape):
    """An array of this shape and dtype whose elements all are one element in memory."""
    buf = _one.get(dtype)
    if buf is None:
        buf = _one[dtype] = _nb.zeros(1, dtype)
    return np.ndarray(shape, dtype, buffer=buf, strides=(0,) * len(shape))


def _c_strides(shape, itemsize):
    strides = []
    acc = itemsize
    for d in reversed(shape):
        strides.append(acc)
        acc *= max(d, 1)
    return tuple(reversed(strides))


def nocopy_reshape_strides(shape, strides, newshape, itemsize):
    """Strides of `reshape(newshape)` as a view in C order, or None when NumPy must copy."""
    if 0 in shape:
        return _c_strides(newshape, itemsize)
    old = [(d, s) for d, s in zip(shape, strides) if d != 1]
    od = [d for d, _ in old]
    os_ = [s for _, s in old]
    nd = list(newshape)
    ns = [0] * len(nd)
    oi, oj, ni, nj = 0, 1, 0, 1
    while ni < len(nd) and oi < len(od):
        np_, op = nd[ni], od[oi]
        while np_ != op:
            if np_ < op:
                np_ *= nd[nj]
                nj += 1
            else:
                op *= od[oj]
                oj += 1
        for ok in range(oi, oj - 1):
            if os_[ok] != od[ok + 1] * os_[ok + 1]:
                return None
        ns[nj - 1] = os_[oj - 1]
        for nk in range(nj - 1, ni, -1):
            ns[nk - 1] = ns[nk] * nd[nk]
        ni, nj = nj, nj + 1
        oi, oj = oj, oj + 1
    last = ns[ni - 1] if ni >= 1 else itemsize
    for nk in range(ni, len(nd)):
        ns[nk] = last
    return tuple(ns)


def _norm_newshape(size, newshape):
    if isinstance(newshape, (int, np.integer)):
        newshape = (int(newshape),)
    newshape = tuple(int(d) for d in newshape)
    if newshape.count(-1) > 1:
        raise ValueError("can only specify one unknown dimension")
    if -1 in newshape:
        known = 1
        for d in newshape:
            if d != -1:
                known *= d
        if known == 0 or size % known:
            raise ValueError(f"cannot reshape array of size {size} into shape {newshape}")
        newshape = tuple(size // known if d == -1 else d for d in newshape)
    total = 1
    for d in newshape:
        if d < 0:
            raise ValueError("negative dimensions not allowed")
        total *= d
    if total != size:
        raise ValueError(f"cannot reshape array of size {size} into shape {newshape}")
    return newshape


def reshape(tracer, lz, newshape, order="C"):
    if order != "C":
        raise Unsupported("unsupported", f"reshape(order={order!r})")
    newshape = _norm_newshape(lz.size, newshape)
    fake = lz._get_fake()
    strides = nocopy_reshape_strides(fake.shape, fake.strides, newshape, fake.itemsize)
    if strides is None:  # NumPy copies here, so do we: a new array, not a view
        return tracer.make(np.reshape, (Ref(0), newshape), None, (lz._n,), lz.dtype, newshape,
                           "reshape (copy)")
    v = np.lib.stride_tricks.as_strided(fake, shape=newshape, strides=strides)
    if not fake.flags.writeable:
        v.flags.writeable = False
    return _view(tracer, lz, np.reshape, (newshape,), None, "reshape", v)


def ravel(tracer, lz, order="C"):
    if order != "C":
        raise Unsupported("unsupported", f"ravel(order={order!r})")
    if lz._get_fake().flags.c_contiguous:
        return reshape(tracer, lz, (lz.size,))
    return tracer.make(np.ravel, (Ref(0),), None, (lz._n,), lz.dtype, (lz.size,), "ravel (copy)")


def pure_view(tracer, lz, fn, args, kwargs, label):
    """transpose, swapaxes, squeeze, expand_dims, broadcast_to, moveaxis: always views."""
    r = fn(lz._get_fake(), *args, **(kwargs or {}))
    return _view(tracer, lz, fn, args, kwargs, label, r)


_MAY_COPY = (np.reshape,)
