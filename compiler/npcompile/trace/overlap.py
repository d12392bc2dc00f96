"""Whether two arrays share an element, exactly where that is cheap to know.

np.may_share_memory compares byte bounds only: the columns u[:, j] and u[:, j - 1] of
one C-ordered array interleave, their bounds overlap, and yet no element is shared. A
column sweep (`u[1:, j] = w * u[1:, j - 1] + ...`) hands a loop body both views; taken
as overlapping, every in-place write broke the graph ('alias') and the loop unrolled
into the trace (200 columns: 0.35 s cold, 80x NumPy's time per call while the path
choice sampled it). np.shares_memory solves the exact problem; past MAX_WORK steps
(views whose strides make it a hard Diophantine problem) they are taken to overlap."""
import numpy as np

MAX_WORK = 256
_TOO_HARD = getattr(getattr(np, "exceptions", None), "TooHardError", None) or \
    getattr(np, "TooHardError")


def overlaps(a, b):
    """May a write through `a` change what `b` reads (or the reverse)? False only where
    that is known: disjoint bounds, or ndarrays np.shares_memory finds disjoint."""
    if not np.may_share_memory(a, b):
        return False
    if type(a) is not np.ndarray or type(b) is not np.ndarray:
        return True     # a DeviceArray: its bounds are all that is known
    try:
        return bool(np.shares_memory(a, b, max_work=MAX_WORK))
    except _TOO_HARD:
        return True
