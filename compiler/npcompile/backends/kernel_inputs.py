"""The input buffers of one kernel, for either backend: which graph nodes it reads and
how their layout reaches the generated code."""
from ..codegen.cpp import Buffer


class KernelInputs:
    """Called with a load expression, returns its Buffer (made on first use, in order).

    A leaf, or a view of one taken when the plan was made, has its layout now: C-contiguous,
    or constant element strides (checked on every run). An array one of our kernels wrote
    is C-contiguous. Anything else gets its strides at run time, in P[]."""

    def __init__(self, kernel, example_of):
        self.kernel = kernel
        self.example_of = example_of   # node -> (example value or None, written by a kernel)
        self.by_node = {}
        self.order = []                # the nodes read, in bufs[] order after the outputs
        self.nparams = 0

    def __call__(self, e):
        node = e.op
        b = self.by_node.get(id(node))
        if b is not None:
            return b
        example, written = self.example_of(node)
        fixed = None
        if example is not None:
            contiguous = bool(example.flags.c_contiguous)
            # a symbolic kernel serves several sizes: strides that follow them go in P[]
            if not contiguous and not self.kernel.symbolic and \
                    all(s % example.itemsize == 0 for s in example.strides):
                fixed = tuple(s // example.itemsize for s in example.strides)
        else:
            contiguous = written
        b = Buffer(len(self.kernel.outputs) + len(self.by_node), node.dtype, node.shape,
                   contiguous, fixed)
        if not contiguous and fixed is None:
            b.param = self.nparams
            self.nparams += len(node.shape)
        self.by_node[id(node)] = b
        self.order.append(node)
        self.kernel.inputs.append(b)
        return b
