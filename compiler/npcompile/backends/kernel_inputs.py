"""The input buffers of one kernel, for either backend: which graph nodes it reads and
how their layout reaches the generated code."""
from ..codegen.kernel_ir import Buffer


class KernelInputs:
    """Called with a load expression, returns its Buffer (made on first use, in order).

    A leaf, or a view of one taken when the plan was made, has its layout now: C-contiguous,
    or constant element strides (checked on every run). An array one of our kernels wrote
    is C-contiguous. Anything else gets its strides at run time, in P[]."""

    def __init__(self, kernel, example_of, fixed_strides=True):
        self.kernel = kernel
        self.example_of = example_of   # node -> (example value or None, written by a kernel)
        # may an input's strides, as the example has them, be constants of the code? Not
        # on the GPU: a DeviceArray's diagonal or reversed slice can come out as a
        # contiguous copy, and every run then failed the layout check and ran in NumPy
        # (jacobi_iteration: 17 fallbacks per call, for views and then for a loop body's
        # leaf D = np.diag(A)); strides in P[] cost a GPU kernel nothing measurable
        self.fixed_strides = fixed_strides
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
            if not contiguous and not self.kernel.symbolic and self.fixed_strides and \
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


def layout_mode(b):
    """How an input's layout reaches the code: 0 C order, 1 constant strides, 2 P[]."""
    return 0 if b.contiguous else 1 if b.strides is not None else 2


def layout_params(v, dtype, shape, mode, strides):
    """The element strides this call's value brings in P[] (mode 2), after checking that
    it has what the kernel was compiled for (any array type with NumPy's layout fields:
    np.ndarray on the CPU, DeviceArray on the GPU). A mismatch raises: the engine runs
    the graph in NumPy instead, never the kernel on a layout it was not made for."""
    if v.dtype != dtype or v.shape != shape:
        raise RuntimeError("kernel input changed dtype or shape")
    if mode == 0:
        if not v.flags.c_contiguous:
            raise RuntimeError("kernel input is no longer contiguous")
        return ()
    item = v.itemsize
    st = v.strides
    if any(s % item for s in st):
        raise RuntimeError("kernel input strides are not whole elements")
    if mode == 1:
        if tuple(s // item for s in st) != strides:
            raise RuntimeError("kernel input strides changed")
        return ()
    return [s // item for s in st]
