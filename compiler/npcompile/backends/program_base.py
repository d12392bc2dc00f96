"""What the CPU and CUDA programs share: a flushed graph's positions (leaves first, then
pending nodes), its fusion plan, the layouts views will have, and the NumPy steps run
between kernels."""
import time

import numpy as np

from ..codegen.kernel_ir import Buffer, Kernel
from ..fusion.partition import partition
from ..ops import VIEW_LABELS
from ..fusion.reuse import may_fail, reusable_updates
from ..graph import calls
from ..graph.node import substitute
from .step_calls import numpy_errors, step_call

# Kernel runs timed and recorded in full per program (enough for a median per kernel);
# after that, only calls whose number is a power of two are timed. A loop unrolled into a graph runs hundreds of
# kernels per call: a record for each run cost more than the kernels (about 5 us each)
# and the session's list grew without end in a long-running notebook.
TIMED_RUNS = 256


class KernelTiming:
    """Which calls of a program time their kernels (see TIMED_RUNS)."""

    __slots__ = ("calls", "runs")

    def __init__(self):
        self.calls = 0
        self.runs = 0

    def timed(self):
        """Is the call about to run timed? (Its kernel runs are then added with ran().)"""
        self.calls += 1
        n = self.calls
        return self.runs < TIMED_RUNS or n & (n - 1) == 0

    def leading_timed(self, count):
        """How many of the next `count` calls, run as one loop, are timed: those before
        TIMED_RUNS kernel runs (the powers of two after it are left out)."""
        timed = max(0, min(count, TIMED_RUNS - self.runs))
        self.calls += count
        return timed

    def ran(self, n):
        self.runs += n


class ProgramBase:
    scans = False   # do the target's kernels compute scans (np.cumsum, ufunc.accumulate)?
    gathers = False  # and integer-array reads (x[idx], g[Y, X])?

    def __init__(self, leaves, pending, outputs, numpy_nodes=frozenset()):
        t0 = time.perf_counter()
        self.nodes = leaves + pending
        self.pos = {id(n): i for i, n in enumerate(self.nodes)}
        self.n_leaves = len(leaves)
        self.output_pos = [self.pos[id(o)] for o in outputs]
        self.plan = partition(leaves, pending, outputs, self.kinds, self.scans, self.gathers,
                              numpy_nodes)
        self.fusion_ms = (time.perf_counter() - t0) * 1e3
        # the CPU backend's translation units: {"thread", "t_start", "phases"} each
        # (backends/cpu_units.py), for the profiler's timeline
        self.compile_units = []
        self._examples = self._view_examples(pending)
        # What a run needs of each pending node, copied now: the trace's nodes become
        # leaves after its flush, and a replayed call (api/replay.py) has no nodes at all.
        pos = self.pos
        self.calls = {pos[id(n)]: (n.fn, n.args, n.kwargs, tuple(pos[id(i)] for i in n.inputs))
                      for n in pending}
        self.metas = [(n.shape, n.dtype) for n in self.nodes]
        # updates that write into their base instead of a copy of it (fusion/reuse.py)
        self.reuse = reusable_updates(self.plan, pos, self.output_pos, self.n_leaves)
        numpy_steps = [pos[id(step[1])] for step in self.plan.steps if step[0] == "numpy"]
        # whether a NumPy step may raise NumPy's error mid-run (exec/engine.py keeps the
        # caller's arrays the graph writes only then: a view or a plain write cannot)
        self.numpy_steps_may_raise = any(step[0] == "numpy" and may_fail(step)
                                         for step in self.plan.steps)
        self._midway = None
        self.step_fns = {}
        for p in numpy_steps:
            fn, args, kwargs, inputs = self.calls[p]
            self.step_fns[p] = numpy_errors(step_call(
                calls.update_reusing if p in self.reuse else fn, args, kwargs, inputs))
        self.timing = KernelTiming()
        self.written = set()   # ids of the nodes our kernels write (C order, known shape)

    def may_stop_midway(self):
        """Whether a run may stop after writing the caller's arrays: a NumPy step that may
        raise, or a kernel flagging values NumPy must handle (an out-of-range float -> int
        cast, a negative integer power, an integer division by zero); the engine then
        keeps copies of what the graph writes, to run it again in NumPy from the arrays
        as they were."""
        if self._midway is None:
            self._midway = self.numpy_steps_may_raise or any(
                getattr(ck.kernel, "flagged", False) or
                getattr(ck.kernel, "flag_index", None) is not None for ck in self.kernels)
        return self._midway

    def shapes_of(self, nodes):
        """The leaves' shapes: with the structure and constants the cache key fixes, they
        decide every other node's shape (a kernel is specialized to all of them)."""
        return tuple(n.shape for n in nodes[:self.n_leaves])

    def new_kernel(self, roots, shape):
        """A kernel of the plan's roots [(node, expr)], one C-ordered output per root."""
        k = Kernel(None, [e for _, e in roots], [], shape)
        for i, (node, _) in enumerate(roots):
            k.outputs.append(Buffer(i, node.dtype, node.shape, True))
        return k

    def mark_written(self, roots):
        for node, _ in roots:
            self.written.add(id(node))

    def example_of(self, node):
        """(example value or None, written by one of our kernels): how a kernel reading
        node learns its layout (backends/kernel_inputs.py)."""
        ex = node.value if node.is_leaf else self._examples.get(id(node))
        return ex, id(node) in self.written

    def _view_examples(self, pending):
        """Views of leaves cost nothing to take now: their strides become constants in
        the kernel (interleaved loads vectorize; P[] strides would not). Views of arrays
        a kernel writes (C-contiguous, of known shape) are taken of an untouched
        np.ndarray stand-in for the same reason (e.g. Xn[:, :, None] * Yn[:, None, :])."""
        written = {id(node) for step in self.plan.steps if step[0] == "kernel"
                   for node, _ in step[1]}
        vals = {}

        def example(i):
            if i.is_leaf:
                return i.value
            if id(i) not in vals and id(i) in written:
                # np.ndarray, not np.empty: creation functions are traced here
                vals[id(i)] = np.ndarray(i.shape, i.dtype)  # virtual memory only
            return vals.get(id(i))
        for n in pending:
            if n.label in VIEW_LABELS and all(example(i) is not None for i in n.inputs):
                ins = [example(i) for i in n.inputs]
                try:
                    vals[id(n)] = n.fn(*substitute(n.args, ins),
                                       **(substitute(n.kwargs, ins) if n.kwargs else {}))
                except Exception:
                    pass
        return vals

    def run(self, nodes):
        """Run on this call's graph (same structure as the one compiled)."""
        return self.run_values([n.value for n in nodes[:self.n_leaves]])

    def run_numpy_step(self, pos, vals):
        """A node that runs in NumPy between kernels, on this call's values."""
        return self.step_fns[pos](vals)
