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


def select(a, mask, lead=0):
    """a[(slice(None),) * lead + (mask,)]."""
    # lead > 0 stays NumPy's: its result is a view, the selected axis outermost in
    # memory ((40, 13, 7) strided (56, 2240, 8)), a layout later calls could tell apart
    if lead or _runtime is None or type(a) is not np.ndarray or type(mask) is not np.ndarray or \
            mask.dtype != np.bool_ or mask.ndim == 0 or a.size < MIN_ELEMENTS or \
            mask.shape != a.shape[lead:lead + mask.ndim] or a.dtype.hasobject or \
            not a.flags.c_contiguous or not mask.flags.c_contiguous:
        return a[(slice(None),) * lead + (mask,) if lead else mask]
    count = int(np.count_nonzero(mask))
    after = a.shape[mask.ndim:]
    out = np.empty((count,) + after, a.dtype)
    _runtime.compact_rows(a, mask, out, 1, mask.size, a.itemsize * math.prod(after), count,
                          a.itemsize)
    return out
