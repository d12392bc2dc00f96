"""What the CPU and CUDA programs share: a flushed graph's positions (leaves first, then
pending nodes), its fusion plan, the layouts views will have, and the NumPy steps run
between kernels."""
import time

import numpy as np

from ..fusion.partition import VIEW_LABELS, partition
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

    @staticmethod
    def shapes_of(nodes):
        return tuple(n.shape for n in nodes)

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

    @staticmethod
    def run_numpy_step(node, vals, index):
        """A node that runs in NumPy between kernels, on this call's values."""
        ins = [vals[index[id(i)]] for i in node.inputs]
        return node.fn(*substitute(node.args, ins),
                       **(substitute(node.kwargs, ins) if node.kwargs else {}))
