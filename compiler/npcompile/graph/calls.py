"""Small callables that nodes record where NumPy has no single function for the job.
Each does exactly what the eager NumPy statement does."""
import operator

import numpy as np

from .. import compaction, np_base as _nb


class _NoKey:
    __slots__ = ()

    def __repr__(self):
        return "NOKEY"


NOKEY = _NoKey()


class InPlace:
    """A NumPy function that writes into the array it is given, as update() calls a
    write: fn(*operands, out=region) runs call(region, *operands, **kwargs). ufunc.at
    (NumPy's own unbuffered scatter: a duplicate index applies once per occurrence),
    np.fill_diagonal (its flat assignment repeats the values along the diagonal)."""

    __slots__ = ("call", "name")

    def __init__(self, call, name):
        self.call = call
        self.name = name

    def __call__(self, *operands, out, **kwargs):
        self.call(out, *operands, **kwargs)

    def __repr__(self):
        return self.name


_IN_PLACE = {}


def in_place(call, name):
    """The one InPlace of a function (a graph's signature compares it by identity)."""
    got = _IN_PLACE.get(name)
    if got is None:
        got = _IN_PLACE[name] = InPlace(call, name)
    return got


def ufunc_at(ufunc):
    return in_place(ufunc.at, f"np.{ufunc.__name__}.at")


def apply_chain(value, chain):
    for step in chain:
        value = step.apply(value)
    return value


def update(base, chain, key, fn, kwargs, c_order, *operands):
    """A new version of `base` after an in-place write: `region[key] = operand` when
    fn is None, else `fn(*operands, out=region)`; region is base seen through chain."""
    out = _nb.array(base, copy=True, order="C" if c_order else "K")
    return _write(out, chain, key, fn, kwargs, operands)


def update_reusing(base, chain, key, fn, kwargs, c_order, *operands):
    """update() writing into base itself, where no one can see base's old value any
    more (fusion/reuse.py decides): the copy per assignment is what made loops of
    `x[k] = v` slow. Falls back to the copy where base is not a plain writable array of
    the layout the version must have."""
    if type(base) is not np.ndarray or not base.flags.writeable or \
            (c_order and not base.flags.c_contiguous):
        return update(base, chain, key, fn, kwargs, c_order, *operands)
    return _write(base, chain, key, fn, kwargs, operands)


def _write(out, chain, key, fn, kwargs, operands):
    region = apply_chain(out, chain)
    if fn is None:
        if key is NOKEY:
            region[...] = operands[0]
        else:
            region[key] = operands[0]
    elif fn is operator.ipow:  # ndarray's own in-place ** (fast paths included)
        r = operator.ipow(region, operands[0])
        if r is not region:
            region[...] = r
    else:
        fn(*operands, out=region, **kwargs)
    return out


def astype(value, dtype, casting="unsafe"):
    return value.astype(dtype, casting=casting)


def copy(value):
    return value.copy()


def flatten(value, order="C"):
    return value.flatten(order)


def bincount_of_length(x, weights, minlength):
    """np.bincount where the trace bounded every value of x below minlength
    (trace/value_bounds.py), so its result has minlength elements: checked, as a bound
    that were wrong must fail loudly, never give another shape than the graph's."""
    r = np.bincount(x, weights, minlength)
    if len(r) != minlength:
        raise RuntimeError(f"npcompile: np.bincount gave {len(r)} counts where the trace "
                           f"had bounded them to {minlength}")
    return r


def array_of(*items):
    """np.array of a list of numbers and 0-d arrays (an index list `[k, p]`)."""
    return np.array(items)


def selected_reduction(a, mask, fn, lead, **kwargs):
    """fn(a[:, ..., mask], **kwargs) (`lead` whole axes before the mask's): a reduction
    of NumPy's compact selection whose result's shape does not depend on how many
    elements the mask selects (trace/selected_reductions.py)."""
    return fn(compaction.select(a, mask, lead), **kwargs)


def packed_reduction(packed, mask, fn, **kwargs):
    """fn(a[mask], **kwargs) from compaction.packed(a, mask), which the reductions of one
    selection share: its first np.count_nonzero(mask) rows are NumPy's compact array."""
    return fn(packed[:np.count_nonzero(mask)], **kwargs)


def selected_bincount(a, mask, weights, minlength):
    """np.bincount(a[mask], weights[mask], minlength): its length is minlength where the
    trace bounds a's values below it (trace/selected_reductions.bincount)."""
    return np.bincount(compaction.select(a, mask),
                       None if weights is None else compaction.select(weights, mask), minlength)
