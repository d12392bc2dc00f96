"""The CPU backend: fused kernels compiled in process by LLVM (npcompile._native.cpu)
and run on the thread pool; NumPy steps in between run as recorded."""
import time

import numpy as np

from .cpu_units import compile_units
from .cpu_symbolic import sized_alike
from .kernel_inputs import KernelInputs, layout_mode, layout_params
from .program_base import ProgramBase
from ..codegen.cpp import render_kernel, render_split_kernel, top_reductions
from ..codegen.cpp_ops import CTYPE
from ..fusion.partition import returns_scalar
from ..trace import np_base as _nb  # the creation functions, unwrapped (trace/creation.py)

try:
    from .._native import cpu as _cpu
    AVAILABLE = True
    UNAVAILABLE_REASON = ""
except Exception as e:  # the package still works, on the reference path
    _cpu = None
    AVAILABLE = False
    UNAVAILABLE_REASON = f"native CPU backend not importable: {e}"

MIN_CHUNK_ELEMENTS = 1 << 15
# Outputs this large come from the runtime's buffer pool (pages already faulted in:
# first-touch faults from several threads serialize in the OS); smaller ones from NumPy.
# glibc serves 128 KiB and up with fresh mmap pages: a 400 KB output per step of a
# 50,000-point stencil loop faulted 100 pages every time (heat equation, 100 steps:
# 25.9 ms with a 1 MiB threshold, 4.9 ms with this one; NumPy 6 ms).
POOL_MIN_BYTES = 1 << 16
# Full reductions (axis=None) of at least this many elements run as per-chunk partials
# on the pool, combined in chunk order; the chunk count depends only on the sizes, so
# the result is the same for any number of threads.
SPLIT_MIN_ELEMENTS = 1 << 17
SPLIT_CHUNK_ELEMENTS = 1 << 16
SPLIT_MAX_CHUNKS = 64
# kernel symbol -> (per-chunk function address or None, address). A symbol is the hash
# of its kernel's text, and the JIT never unloads code: valid for the whole process.
_ADDRESSES = {}
_NO_PARAMS = [0]   # the kernel ABI takes a P[] pointer even when it reads nothing there
NUMPY_OF_CTYPE = {c: np.dtype(f"{k}{n}") if k != "b" else np.dtype(bool)
                  for k, sizes in CTYPE.items() for n, c in sizes.items()}


class CompiledKernel:
    def __init__(self, kernel, address, input_nodes, output_nodes):
        self.kernel = kernel
        self.address = address
        self.input_pos = input_nodes    # graph positions of the inputs
        self.output_pos = output_nodes  # graph positions of the outputs
        self.part_address = None        # split kernels: the per-chunk function

    def prepare(self, metas):
        """What every run checks and allocates, worked out once (a loop unrolled into
        the graph runs this kernel hundreds of times per call)."""
        k = self.kernel
        self.outs = [(p,) + tuple(metas[p]) + (_pooled(*metas[p]),) for p in self.output_pos]
        self.scalar_outs = [p for p in self.output_pos if metas[p][0] == ()]
        # per input: (position, dtype, shape, mode, element strides); mode 0: C order,
        # 1: these constant strides, 2: strides go in P[]
        self.checks = [(p, b.dtype, b.shape, layout_mode(b), b.strides)
                       for b, p in zip(k.inputs, self.input_pos)]
        self.n_outer = k.shape[0] if k.shape else 1
        self.empty = any(d == 0 for d in k.shape)
        self.grain = max(1, MIN_CHUNK_ELEMENTS // self.row_work)
        self.parts = [NUMPY_OF_CTYPE[t] for t in k.part_types] \
            if self.part_address is not None else []

    def run(self, vals, calls):
        """One run on the graph's value list: outputs allocated, inputs checked against
        the layout the code was compiled for, the kernel run on the thread pool."""
        k = self.kernel
        outs = [_cpu.empty(shape, dtype) if pooled else _nb.empty(shape, dtype)
                for _, shape, dtype, pooled in self.outs]
        bufs = list(outs)
        params = []
        for p, dtype, shape, mode, strides in self.checks:
            v = vals[p]
            if type(v) is not np.ndarray:
                v = _nb.asarray(v)
            params.extend(layout_params(v, dtype, shape, mode, strides))
            bufs.append(v)
        params.extend(k.extents)   # a symbolic kernel's sizes, after the strides
        if not params:
            params = _NO_PARAMS
        if self.parts:
            bufs.extend(_nb.empty(k.chunks, t) for t in self.parts)
        flag = None
        if k.flag_index is not None:
            flag = _nb.zeros(1, np.int32)
            bufs.append(flag)
        if self.part_address is not None:
            _cpu.run_kernel(self.part_address, bufs, params, k.chunks, 1)
        if not self.empty:
            _cpu.run_kernel(self.address, bufs, params, self.n_outer, self.grain)
        if flag is not None and flag[0]:
            # a float->int cast out of range / of NaN, or a negative integer power:
            # the engine reruns the graph in NumPy (its values, warnings, errors)
            raise RuntimeError("values NumPy must handle (out-of-range cast or "
                               "negative integer power)")
        for (p, _, _, _), o in zip(self.outs, outs):
            vals[p] = o
        for p in self.scalar_outs:
            fn, _, _, inputs = calls[p]
            if returns_scalar(fn, [vals[i] for i in inputs]):
                vals[p] = vals[p][()]


class Program(ProgramBase):
    """A compiled graph: steps over graph positions (leaves first, then pending nodes)."""

    def __init__(self, leaves, pending, outputs):
        super().__init__(leaves, pending, outputs)
        pos = self.pos
        self.steps = []
        self.kernels = []
        self.compile_ms = {"fusion": self.fusion_ms, "codegen": 0.0, "frontend": 0.0,
                           "optimize": 0.0, "jit": 0.0}
        self.cache = "memory"
        symbolic = sized_alike(self.plan.steps)
        for i, step in enumerate(self.plan.steps):
            if step[0] == "numpy":
                self.steps.append(("numpy", pos[id(step[1])]))
                continue
            _, roots, shape = step
            self.steps.append(("kernel", self._build(roots, shape, pos, i in symbolic)))
        if self.kernels:
            self._compile_module()
        self.signature = self.shapes_of(self.nodes)
        self._examples = None  # strides are in the kernels now; do not keep arrays alive

    def _build(self, roots, shape, pos, symbolic=False):
        t0 = time.perf_counter()
        k = self.new_kernel(roots, shape)
        k.symbolic = symbolic
        buffer_of = KernelInputs(k, self.example_of)
        order = buffer_of.order
        splits = top_reductions(k.roots, SPLIT_MIN_ELEMENTS) if shape == () else []
        if splits:
            smallest = min(int(np.prod(e.inputs[0].shape)) for e in splits)
            lead = min(e.inputs[0].shape[0] for e in splits)
            chunks = min(SPLIT_MAX_CHUNKS, smallest // SPLIT_CHUNK_ELEMENTS, lead)
            splits = splits if chunks >= 2 else []
        if splits:
            k.symbolic = False  # chunks follow the sizes
            render_split_kernel(k, buffer_of, splits, chunks)
        else:
            render_kernel(k, buffer_of)
        self.compile_ms["codegen"] += (time.perf_counter() - t0) * 1e3
        ck = CompiledKernel(k, None, [pos[id(n)] for n in order],
                            [pos[id(node)] for node, _ in roots])
        self.mark_written(roots)
        ck.row_work = _row_work(k)
        self.kernels.append(ck)
        return ck

    def _compile_module(self):
        """The graph's kernels in a few translation units built at once (cpu_units.py).
        A kernel's symbol is the hash of its text, so kernels named alike are the same code
        (a loop body traced again): each is compiled once and called at each place, and
        one compiled for an earlier graph is not compiled again (one graph per iteration
        of a loop with a data-dependent `if` brings the same symbolic kernels each time)."""
        new = {}
        for ck in self.kernels:
            if ck.kernel.name not in _ADDRESSES:
                new.setdefault(ck.kernel.name, ck.kernel)
        self.module_sources = []
        for kernels, source, r in (compile_units(_cpu, list(new.values())) if new else ()):
            self.module_sources.append(source)
            self.compile_ms["frontend"] += r["ms_frontend"]
            self.compile_ms["optimize"] += r["ms_optimize"]
            self.compile_ms["jit"] += r["ms_codegen"]
            if not r["cache_hit"]:
                self.cache = "miss"
            elif r.get("from_disk") and self.cache != "miss":
                self.cache = "disk"
            addresses = iter(r["addresses"])
            for k in kernels:
                part = next(addresses) if k.names else None
                _ADDRESSES[k.name] = (part, next(addresses))
        for ck in self.kernels:
            ck.part_address, ck.address = _ADDRESSES[ck.kernel.name]
            ck.prepare(self.metas)

    def run_values(self, leaf_values):
        """Run on this call's leaf values (the graph's inputs, in graph order)."""
        vals = list(leaf_values) + [None] * (len(self.metas) - self.n_leaves)
        timed = self.timing.begin_call()
        step_fns = self.step_fns
        for kind, step in self.steps:
            if kind == "numpy":
                vals[step] = step_fns[step](vals)
            elif timed is None:
                step.run(vals, self.calls)
            else:
                t0 = time.perf_counter()
                step.run(vals, self.calls)
                timed.append((step.kernel.name, (time.perf_counter() - t0) * 1e3))
        self.last_timings = timed or []
        return [vals[p] for p in self.output_pos]


def _row_work(kernel):
    """Elements visited per outer index: the inner dimensions times the largest
    reduction inside (a (1024,) kernel summing 640x640 per row is big work, and must
    be split across threads although it has only 1024 rows)."""
    inner = int(np.prod(kernel.shape[1:])) if len(kernel.shape) > 1 else 1
    extent, seen, stack = 1, set(), list(kernel.roots)
    while stack:
        e = stack.pop()
        if id(e) in seen:
            continue
        seen.add(id(e))
        if e.kind == "reduce":
            n = 1
            for a in e.attrs["axes"]:
                n *= e.inputs[0].shape[a]
            extent = max(extent, n)
        stack.extend(e.inputs)
    return max(1, inner * extent)


def _pooled(shape, dtype):
    """Does an output of this size come from the runtime's pool (POOL_MIN_BYTES)?"""
    n = dtype.itemsize
    for d in shape:
        n *= d
    return n >= POOL_MIN_BYTES
