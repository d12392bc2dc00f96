"""What a renderer turns into source: a fused kernel (its expressions, iteration space
and buffers) and each buffer's layout. The fusion plan decides the expressions, the
backend the buffers' layouts; codegen/cpp.py and codegen/cuda.py fill in the source."""
import numpy as np


class Buffer:
    """A kernel argument: an input array (leaf or materialized) or an output."""

    def __init__(self, index, dtype, shape, contiguous, strides=None):
        self.index = index
        self.dtype = np.dtype(dtype)
        self.shape = tuple(shape)
        self.contiguous = contiguous
        self.strides = strides      # constant element strides, when known at plan time
        self.param = None           # first P slot of its strides when not contiguous


class Kernel:
    def __init__(self, name, roots, outputs, shape):
        self.name = name
        self.roots = roots      # Exprs, one per output buffer
        self.outputs = outputs  # output Buffers
        self.shape = tuple(shape)
        self.inputs = []        # input Buffers, in bufs[] order after the outputs
        self.need = set()
        self.source = None
        self.ops = []           # (label, line text) of the NumPy ops fused here
        self.names = None       # split kernels: [per-chunk symbol, combining symbol]
        self.columns = False    # computed in blocks of columns (codegen/cpp_columns.py)
        self.part_base = None   # split kernels: bufs[] index of the first partials array
        self.part_types = []    # split kernels: C type of each partials array
        self.chunks = 0         # split kernels: number of partials per reduction
        self.flag_index = None  # bufs[] index of the int32 flag npc_bad is stored to
        self.head = ""          # the comment lines of the source (ops fused here)
        # Symbolic kernels take their sizes (except 1s) at run time from P[], after the
        # strides: one text for a loop body whose slices shrink with k (see extent()).
        self.symbolic = False
        self.extents = []       # symbolic kernels: the sizes S0, S1, ... of this instance
        self.body = ""          # the function(s), without prelude and declarations
        # The dimension whose range [begin, end) one call computes (the first, unless a
        # scan runs along it); serial: the calls may not split it (every dimension is
        # scanned), one call computes all.
        self.split_dim = 0
        self.serial = False
