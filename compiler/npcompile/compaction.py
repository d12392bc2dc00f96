"""NumPy's boolean-mask selection `a[:, ..., mask]` (`lead` whole axes before the mask's),
made by the runtime's branch-free compaction (runtime/Compact.hpp) where it can be:
NumPy tests each mask byte, and a random mask mispredicts half of them (100,000
doubles: 440 us, a copy of them 68 us). The same values, dtype and shape as NumPy's,
a new C-ordered array that owns its memory, as NumPy's is where the mask covers the
first axes; anything else is NumPy's own indexing."""
import math

import numpy as np

try:
    from ._native import runtime as _runtime
except Exception:   # the package runs without its native module (NPC_BACKEND=reference)
    _runtime = None

# below this many elements NumPy's call (about 2 us) is as quick
MIN_ELEMENTS = 1024


def _native_ok(a, mask, lead):
    """Whether the runtime compacts this selection as NumPy's indexing would."""
    # lead > 0 stays NumPy's: its result is a view, the selected axis outermost in
    # memory ((40, 13, 7) strided (56, 2240, 8)), a layout later calls could tell apart
    return not lead and _runtime is not None and type(a) is np.ndarray and \
        type(mask) is np.ndarray and mask.dtype == np.bool_ and mask.ndim > 0 and \
        a.size >= MIN_ELEMENTS and mask.shape == a.shape[:mask.ndim] and \
        not a.dtype.hasobject and a.flags.c_contiguous and mask.flags.c_contiguous


def select(a, mask, lead=0):
    """a[(slice(None),) * lead + (mask,)]."""
    if not _native_ok(a, mask, lead):
        return a[(slice(None),) * lead + (mask,) if lead else mask]
    count = int(np.count_nonzero(mask))
    out = np.empty((count,) + a.shape[mask.ndim:], a.dtype)
    _into(a, mask, out, count)
    return out


def _into(a, mask, out, count):
    """The runtime's compaction of a by mask into the front of out (_native_ok's cases)."""
    _runtime.compact_rows(a, mask, out, 1, mask.size, a.itemsize * math.prod(a.shape[mask.ndim:]),
                          count, a.itemsize)


def packed(a, mask):
    """a[mask] at the front of an array of mask.size rows (the rest unset): one
    compaction that several reductions of one selection share (graph/calls.py
    packed_reduction), each taking the first np.count_nonzero(mask) rows, which are NumPy's
    compact array, C-ordered from the buffer's start, so reduced to the same bits."""
    after = a.shape[mask.ndim:] if mask.shape == a.shape[:mask.ndim] else None
    if after is None:
        a[mask]                     # NumPy's IndexError for a mask of another shape
    out = np.empty((mask.size,) + after, a.dtype)
    count = int(np.count_nonzero(mask))
    if _native_ok(a, mask, 0):
        _into(a, mask, out, count)
    else:
        out[:count] = a[mask]
    return out
