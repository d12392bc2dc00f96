"""The CPU backend: fused kernels compiled in process by LLVM (npcompile._native.cpu)
and run on the thread pool; NumPy steps in between run as recorded."""
import time
import weakref

import numpy as np

from . import cpu_step_program
from .cpu_units import compile_units
from .jit_code import JitCode
from .cpu_symbolic import sized_alike
from .kernel_inputs import KernelInputs
from .program_base import ProgramBase
from ..codegen.cpp import KINDS, render_kernel, render_split_kernel, split_chunks, top_reductions
from ..codegen.cpp_ops import CTYPE
from ..codegen.numpy_sum_order import NotNumPyOrder
from ..fusion.expr import scanned_axes

try:
    from .._native import cpu as _cpu
    AVAILABLE = True
    UNAVAILABLE_REASON = ""
except Exception as e:  # the package still works, on the reference path
    _cpu = None
    AVAILABLE = False
    UNAVAILABLE_REASON = f"native CPU backend not importable: {e}"

# Full reductions (axis=None) of at least this many elements run as per-chunk partials
# on the pool, combined in chunk order; the chunk count depends only on the sizes, so
# the result is the same for any number of threads.
SPLIT_MIN_ELEMENTS = 1 << 17
SPLIT_CHUNK_ELEMENTS = 1 << 16
SPLIT_MAX_CHUNKS = 64
# kernel symbol -> the JitCode holding it (backends/jit_code.py): a symbol is the hash of
# its kernel's text, so a program finding its kernel here compiles nothing. Held weakly:
# the programs calling a module hold it, and it is unloaded after the last one.
_CODES = weakref.WeakValueDictionary()
NUMPY_OF_CTYPE = {c: np.dtype(f"{k}{n}") if k != "b" else np.dtype(bool)
                  for k, sizes in CTYPE.items() for n, c in sizes.items()}


class CompiledKernel:
    def __init__(self, kernel, address, input_nodes, output_nodes):
        self.kernel = kernel
        self.address = address
        self.input_pos = input_nodes    # graph positions of the inputs
        self.output_pos = output_nodes  # graph positions of the outputs
        self.part_address = None        # split kernels: the per-chunk function


class Program(ProgramBase):
    """A compiled graph: steps over graph positions (leaves first, then pending nodes)."""

    kinds = KINDS   # the dtype kinds its kernels compute (complex included)
    scans = True    # and scans along an axis (codegen/cpp_scan.py)
    gathers = True  # and integer-array reads (codegen/cpp.py Emitter._gather_index)

    def __init__(self, leaves, pending, outputs, numpy_nodes=frozenset()):
        super().__init__(leaves, pending, outputs, numpy_nodes)
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
        # bytes each kernel reads and writes a run (its inputs and outputs whole): the
        # reports' GB/s and share of the machine's bandwidth
        self.kernel_bytes = {ck.kernel.name: sum(_nbytes(self.metas[p])
                                                 for p in (*ck.input_pos, *ck.output_pos))
                             for ck in self.kernels}
        self.native = cpu_step_program.build(_cpu, self)
        self.signature = self.shapes_of(self.nodes)
        self._examples = None  # strides are in the kernels now; do not keep arrays alive

    def _build(self, roots, shape, pos, symbolic=False):
        t0 = time.perf_counter()
        k = self.new_kernel(roots, shape)
        k.symbolic = symbolic
        _schedule_scans(k)
        buffer_of = KernelInputs(k, self.example_of)
        order = buffer_of.order
        splits = top_reductions(k.roots, SPLIT_MIN_ELEMENTS) if shape == () else []
        if splits:
            smallest = min(int(np.prod(e.inputs[0].shape)) for e in splits)
            lead = min(e.inputs[0].shape[0] for e in splits)
            chunks = min(SPLIT_MAX_CHUNKS, smallest // SPLIT_CHUNK_ELEMENTS, lead)
            chunks = split_chunks(splits, chunks)   # float sums: NumPy's units
            splits = splits if chunks >= 2 else []
        try:
            if splits:
                k.symbolic = False  # chunks follow the sizes
                render_split_kernel(k, buffer_of, splits, chunks)
            else:
                render_kernel(k, buffer_of)
        except NotNumPyOrder as e:      # compile_program leaves them to NumPy
            e.nodes = float_sum_owners(roots)
            raise
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
        new, codes = {}, {}
        for ck in self.kernels:
            code = _CODES.get(ck.kernel.name)
            if code is None:
                new.setdefault(ck.kernel.name, ck.kernel)
            else:
                codes[ck.kernel.name] = code
        self.module_sources = []
        for kernels, source, r in (compile_units(_cpu, list(new.values())) if new else ()):
            self.module_sources.append(source)
            self.compile_ms["frontend"] += r["ms_frontend"]
            self.compile_ms["optimize"] += r["ms_optimize"]
            self.compile_ms["jit"] += r["ms_codegen"]
            self.compile_units.append({"thread": r["thread"], "t_start": r["t_start"], "phases": {
                "frontend": r["ms_frontend"], "optimize": r["ms_optimize"],
                "jit": r["ms_codegen"]}})
            if not r["cache_hit"]:
                self.cache = "miss"
            elif r.get("from_disk") and self.cache != "miss":
                self.cache = "disk"
            code = JitCode(_cpu, r)
            addresses = iter(r["addresses"])
            for k in kernels:
                part = next(addresses) if k.names else None
                code.addresses[k.name] = (part, next(addresses))
                _CODES[k.name] = codes[k.name] = code
        self.codes = set(codes.values())     # what keeps the kernels' code loaded
        for ck in self.kernels:
            ck.part_address, ck.address = codes[ck.kernel.name].addresses[ck.kernel.name]
            ck.part_itemsizes = [NUMPY_OF_CTYPE[t].itemsize for t in ck.kernel.part_types]

    def run_loop(self, args, leaf_src, count, feeds, writes, views=None, view_pos=(),
                 overlaps=(), itemsizes=None, collect=(), until=None, moves=(), exact=None,
                 rebind=True):
        """The program as a loop body, `count` runs in C++ (StepProgram.run_loop, which
        updates the argument list `args`): (runs completed, the last one's outputs or
        None, the outputs at `collect` of each run, whether Ctrl-C stopped it). With
        `until`, those outputs go to until(tuple) after each run instead, and a falsy
        answer ends the loop there (`count` is then a bound). The runs are timed as that
        many calls of run_values would be. `moves`: (from, to) argument places moved
        after each run (a rotation of buffers). `exact(a, b)`: whether two arguments of
        an `overlaps` pair whose bounds meet share an element (None: they do). `rebind`:
        whether until() may be handed an array the runs write as a new array of the same
        values (it keeps none: StepProgram.run_loop may rebind instead of copying)."""
        timed = self.timing.leading_timed(count)
        done, outs, times, collected, interrupted = self.native.run_loop(
            args, list(leaf_src), count, timed, feeds, writes, views, list(view_pos),
            list(overlaps), itemsizes if itemsizes is not None else [0] * len(args),
            list(collect), until, list(moves), exact, rebind)
        self.last_timings = times
        self.timing.ran(len(times))
        self.timing.calls += done - count   # `until` may end it before `count` runs
        return done, outs, collected, interrupted

    def run_values(self, leaf_values):
        """Run on this call's leaf values (the graph's inputs, in graph order)."""
        outs, times = self.native.run(list(leaf_values), self.timing.timed())
        self.last_timings = times or []
        self.timing.ran(len(self.last_timings))
        return outs


def _nbytes(meta):
    shape, dtype = meta
    return int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize


def compile_program(leaves, pending, outputs):
    """The graph's Program. A float sum whose order NumPy keeps to itself (a value
    computed through a transposed array, summed over more than one axis: NumPy's
    temporary is in another memory order) is a NumPy step in it, computed in NumPy's
    order, and the rest of the graph still compiled: the whole graph ran op by op in
    NumPy before (a bilateral filter's 267 ops, 15x slower than NumPy)."""
    forced = frozenset()
    for retry in range(MAX_NUMPY_SUM_RETRIES + 1):
        try:
            return Program(leaves, pending, outputs, forced)
        except NotNumPyOrder as e:
            more = frozenset(id(n) for n in getattr(e, "nodes", ())) - forced
            if not more or retry == MAX_NUMPY_SUM_RETRIES:
                raise
            forced |= more


# compiles of one graph, each leaving the float sums of a kernel that failed to NumPy
MAX_NUMPY_SUM_RETRIES = 4


def float_sum_owners(roots):
    """The graph nodes whose lowering holds a float or complex sum in a kernel's
    expressions (roots: [(node, expr)]): a mean's, a var's, a sum's own node."""
    out, seen = {}, set()
    stack = [(e, node) for node, e in roots]
    while stack:
        e, owner = stack.pop()
        if id(e) in seen:
            continue
        seen.add(id(e))
        own = e.node if e.node is not None and e.kind != "load" else owner
        if e.kind == "reduce" and e.op == "sum" and e.inputs[0].dtype.kind in "fc":
            out[id(own)] = own
        stack.extend((x, own) for x in e.inputs)
    return list(out.values())


def _schedule_scans(kernel):
    """The calls of a kernel with scans split a dimension no scan runs along (a walk along
    axis 0 of (paths, steps) splits the steps); where every dimension is scanned (a 1-d
    cumsum), one call computes it all."""
    axes = scanned_axes(kernel.roots)
    if not axes:
        return
    free = [d for d in range(len(kernel.shape)) if d not in axes]
    kernel.split_dim = free[0] if free else 0
    kernel.serial = not free


def _row_work(kernel):
    """Elements visited per index of the dimension the calls split: the other dimensions
    times the largest reduction inside (a (1024,) kernel summing 640x640 per row is big
    work, and must be split across threads although it has only 1024 rows)."""
    shape = kernel.shape
    inner = int(np.prod(shape)) // shape[kernel.split_dim] if shape and shape[kernel.split_dim] \
        else (int(np.prod(shape[1:])) if len(shape) > 1 else 1)
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
