"""How a fused kernel is spread over the GPU: the scheme of codegen/cuda.py, threads per
block, blocks per launch, and whether 32-bit index arithmetic is safe (64-bit division,
which every element index needs, costs several times more on the GPU)."""
import math

from ..codegen.cpp import Signatures
from ..codegen.cuda import (INT32_LIMIT, CudaKernelInfo, element_unroll,
                            grid_scratch, narrow_float_sum, nodes, vector_plan)
from ..fusion.expr import top_reduces


def _extent(e):
    x = e.inputs[0]
    return math.prod([x.shape[a] for a in e.attrs["axes"]])


# float32/float16 sums of at most this many terms (one of NumPy's pairwise blocks) run
# one thread per output element, in NumPy's order (codegen/cuda.py narrow_float_sum):
# filter taps, class scores, a small kernel's normalization. Longer ones are split
# across lanes and added in double, which rounds once and need not be NumPy's bits.
NUMPY_ORDER_TERMS = 128


def schedule(kernel):
    """(scheme, threads per block) for a kernel whose roots are known."""
    n_out = math.prod(kernel.shape)
    tops = top_reduces(kernel.roots)
    if not tops:
        return "thread", 256
    extent = max(_extent(e) for e in tops)
    if extent <= NUMPY_ORDER_TERMS and any(narrow_float_sum(e) for e in tops):
        # one thread per output adds a short float32 sum in NumPy's order: its bits
        return "thread", 256
    if n_out == 1:
        # the mean inside np.std counts: a grid level of its own (codegen/cuda.py _grid)
        extent = max([extent] + [_extent(e) for e in nodes(*kernel.roots) if e.kind == "reduce"])
        return ("grid", 512) if extent >= (1 << 16) else ("block", 512)
    first = tops[0]
    inner_reduced = (len(first.inputs[0].shape) - 1) in first.attrs["axes"]
    if extent <= 16 or (not inner_reduced and n_out >= 4096):
        # each thread alone: few terms, or columns that adjacent threads read side by side
        return "thread", 256
    if extent <= 4096:
        return "warp", 256
    return "block", 512


def launch_info(kernel, scheme, block, buffer_of):
    """The read-only schedule codegen/cuda.py renders: elements per thread and vector width
    (thread scheme, pointwise), grid levels and scratch buffers (grid scheme)."""
    n = math.prod(kernel.shape)
    unroll = vector = 0
    levels, scratch = 1, ()
    if scheme == "thread" and not top_reduces(kernel.roots):
        vector = vector_plan(list(kernel.roots), kernel.outputs, kernel.shape, n, buffer_of)[0]
        unroll = vector or element_unroll(kernel.roots)
    elif scheme == "grid":
        levels, scratch = grid_scratch(kernel.roots, Signatures())
    return CudaKernelInfo(scheme, block, n, max(1, unroll), vector, levels, scratch)


# A symbolic kernel (one text for every size: backends/cuda.py) runs each output element
# in one thread, its reductions serially: only where every reduction has at most this
# many terms per element (a loop over k's dot products of rows: at most the matrix's
# size). Longer reductions want the lanes of the warp, block and grid schemes, whose
# texts follow the sizes: those kernels are compiled per size as before.
SYMBOLIC_SERIAL_MAX = 4096
# ... and only kernels of at most this many output elements: a larger one is worth its
# own compile per size (a few milliseconds of NVRTC against kernels of tens of
# microseconds), and keeps the vector tiles whose choice follows its sizes
SYMBOLIC_MAX_ELEMENTS = 1 << 22


def serial_reductions_fit(roots, shape):
    """Can a kernel of these roots [(node, expr)] take the symbolic thread scheme?"""
    return math.prod(shape) <= SYMBOLIC_MAX_ELEMENTS and all(
        _extent(e) <= SYMBOLIC_SERIAL_MAX
        for e in nodes(*[x for _, x in roots]) if e.kind == "reduce")


def symbolic_info(kernel):
    """The schedule of a symbolic kernel: one thread per output element, no tiles, no
    vectors (their choice follows the sizes, and so would the text)."""
    return CudaKernelInfo("thread", 256, math.prod(kernel.shape))


def launch_shape(info, sm_count):
    """(blocks, threads per block): enough blocks to fill every SM several times over;
    grid-stride loops take the rest."""
    block = info.block
    if info.scheme == "thread":
        # each thread takes `unroll` elements per trip: one trip per thread where the
        # grid allows (a second trip for a few threads is a wave of its own)
        groups_per_block = block * info.unroll
        cap = 64 if info.unroll > 1 else 32
    elif info.scheme == "warp":
        groups_per_block, cap = block // 32, 32
    elif info.scheme == "block":
        groups_per_block, cap = 1, 32
    else:  # grid: one output; blocks split its reductions, each level (pass) its own
        return info.levels * 4 * sm_count, block
    blocks = -(-max(info.n_out, 1) // groups_per_block)
    return max(1, min(blocks, cap * sm_count)), block


def index_type(kernel, example_of):
    """'int' when every offset the kernel computes fits in 32 bits, else 'i64'."""
    if math.prod(kernel.shape) >= INT32_LIMIT:
        return "i64"
    for node in _loaded_nodes(kernel.roots):
        example, written = example_of(node)
        if example is None:
            if not written:
                return "i64"   # strides known only at run time
            span = math.prod(node.shape)
        else:
            span = 1
            for d, s in zip(example.shape, example.strides):
                span += (d - 1) * abs(s) // max(example.itemsize, 1)
        if span >= INT32_LIMIT:
            return "i64"
    return "int"


def _loaded_nodes(roots):
    return [e.op for e in nodes(*roots) if e.kind == "load"]
