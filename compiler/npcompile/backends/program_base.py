"""What the CPU and CUDA programs share: a flushed graph's positions (leaves first, then
pending nodes), its fusion plan, the layouts views will have, and the NumPy steps run
between kernels."""
import time

import numpy as np

from ..fusion.partition import VIEW_LABELS, partition
from ..fusion.reuse import reusable_updates
from ..graph import calls
from ..graph.node import substitute


class ProgramBase:
    def __init__(self, leaves, pending, outputs):
        t0 = time.perf_counter()
        self.nodes = leaves + pending
        self.pos = {id(n): i for i, n in enumerate(self.nodes)}
        self.n_leaves = len(leaves)
        self.output_pos = [self.pos[id(o)] for o in outputs]
        self.plan = partition(leaves, pending, outputs)
        self.fusion_ms = (time.perf_counter() - t0) * 1e3
        self._examples = self._view_examples(pending)
        # What a run needs of each pending node, copied now: the trace's nodes become
        # leaves after its flush, and a replayed call (api/replay.py) has no nodes at all.
        pos = self.pos
        self.calls = {pos[id(n)]: (n.fn, n.args, n.kwargs, tuple(pos[id(i)] for i in n.inputs))
                      for n in pending}
        self.metas = [(n.shape, n.dtype) for n in self.nodes]
        # updates that write into their base instead of a copy of it (fusion/reuse.py)
        self.reuse = reusable_updates(self.plan, pos, self.output_pos, self.n_leaves)

    def shapes_of(self, nodes):
        """The leaves' shapes: with the structure and constants the cache key fixes, they
        decide every other node's shape (a kernel is specialized to all of them)."""
        return tuple(n.shape for n in nodes[:self.n_leaves])

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
        fn, args, kwargs, inputs = self.calls[pos]
        if pos in self.reuse:
            fn = calls.update_reusing
        ins = [vals[i] for i in inputs]
        return fn(*substitute(args, ins), **(substitute(kwargs, ins) if kwargs else {}))
