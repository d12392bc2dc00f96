"""The op budget of one trace: past it, tracing stops paying and plain NumPy runs.

A Python loop whose body reads its index (`for i in range(n): C[i, j] = ...`) unrolls
into the trace, a node per op per iteration. Past a few thousand ops the graph costs
far more to trace and compile than NumPy spends running it: a 60x60 double loop of
scalar writes was 11,000 ops and a second of compiling for 0.7 ms of NumPy work, and
the cost grows with the data. So one call may trace at most LIMIT ops (every graph it
flushes counted). Past that the trace ends, without compiling what it holds:

* a jitted call whose trace did nothing visible yet (no write landed in the caller's
  memory, no effect outside the graph: api/purity.py's Watch) is run again from its
  start as the plain NumPy function, and so are that function's later calls with the
  same argument layouts (api/path_choice.py settles on NumPy for good);
* otherwise (a cell, an effect already made) the call goes on traced, but every graph it
  flushes runs on the reference path, op by op in NumPy, with nothing compiled.

Either way the report says so, with the line the trace had reached. NPC_OP_BUDGET sets
the limit (0: none). Loops that api/loop_rewrite.py compiles once never count: their
iterations replay one compiled body."""
import os
import sys

from .native import core


def _from_env(name="NPC_OP_BUDGET", default=10000, kind=int):
    """A positive limit from the environment (its default when unreadable), None for 0."""
    try:
        n = kind(os.environ.get(name, str(default)))
    except ValueError:
        n = default
    return n if n > 0 else None


LIMIT = None


def set_limit(n):
    """Ops one trace may record (None: no limit). Tests and NPC_OP_BUDGET set it."""
    global LIMIT
    LIMIT = n
    if core is not None:  # the C++ recorder asks the tracer past the same count
        core.set_op_budget(sys.maxsize if n is None else n)


set_limit(_from_env("NPC_OP_BUDGET", 10000))


# Compile time one call may spend (ms; None: no limit). Kernels compiled are kept: the
# next call finds them in the cache and compiles on from where this one stopped, so a
# program whose loop makes hundreds of distinct kernels (a GPU Cholesky: 31 s cold)
# costs a second at most per call instead of stalling the first one. (2 s let an
# adaptive RK45 whose ifs break its loop every step take 2.2 s on its first call; 1 s:
# 1.4 s, the rest compiled on the next calls, before the path choice times them.)
COMPILE_LIMIT_MS = _from_env("NPC_COMPILE_BUDGET_MS", 1000.0, float)


def set_compile_limit(ms):
    global COMPILE_LIMIT_MS
    COMPILE_LIMIT_MS = ms


# Graph breaks one call may take on small arrays (None: no limit). A break costs a trace
# flush and a cache lookup (0.3-1 ms; a compile the first time a graph is seen), and a
# graph whose arrays hold a few thousand elements runs in NumPy in microseconds: no
# fused kernel wins that back. A loop that breaks every iteration on such arrays (an
# online perceptron's `err += int(update != 0)`, a row loop's `if np.isnan(x[i])`) was
# 50x NumPy's time on its first call (6000 breaks, 2-3 s). Past BREAK_LIMIT of them,
# three in four of this call's breaks, the call is over budget as past LIMIT ops:
# plain NumPy from its start where nothing happened yet. Breaks between graphs of
# SMALL_ELEMENTS elements or more (a Monte Carlo batch) do not count: those kernels pay;
# one whose flush compiled a new graph counts four (trace/tracer.py graph_break).
BREAK_LIMIT = _from_env("NPC_BREAK_BUDGET", 32)
SMALL_ELEMENTS = 16384
# A break whose flush compiled a new graph counts up to this size: a graph that is new
# at every iteration (LU with row pivoting, `if p != k:` then `A[k + 1:, k + 1:] -= ...`
# on a 150 x 150 matrix: 150 compiles, 1.5 s, for 6 ms of NumPy work) is compiled and
# run once; no kernel of that size wins 10 ms back
COMPILING_ELEMENTS = 1 << 18


# Calls of one argument layout whose trace passed the break budget by its new graphs
# (counted four each; its breaks, counted one each, under half the limit) are traced
# again, this many times, before their calls settle as plain NumPy: the next trace finds
# those graphs compiled, and its breaks count one each. A k-means whose first call
# compiled 8 mask graphs (weight 32) settled as NumPy for good (0.99x NumPy) where its
# second trace made a plan of steps that replays at 2.6x.
RETRIES = 2


def set_break_limit(n):
    global BREAK_LIMIT
    BREAK_LIMIT = n


class TraceBudgetExceeded(BaseException):
    """Ends a trace that outgrew the budget so that the call can run as plain NumPy.
    A BaseException: the user's `except Exception` around traced code must not swallow
    it (if something does, the tracer still knows, and its caller raises it again)."""

    def __init__(self, reason, retry=False):
        super().__init__(reason)
        self.reason = reason
        self.retry = retry    # over only by its new graphs (RETRIES)
