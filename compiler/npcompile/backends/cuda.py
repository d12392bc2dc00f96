"""The CUDA backend: the fusion plan's kernels rendered as CUDA C (codegen/cuda.py),
compiled to PTX by NVRTC, loaded through the driver and launched on device-resident data
(DeviceArray). NumPy steps between kernels run as recorded: views of device arrays stay
on the device, anything else goes through the host (a recorded transfer)."""
import time

import numpy as np

from ..codegen.cuda import KINDS, Unsupported, render_cuda_kernel
from ..records import SESSION
from .. import np_base  # creation functions make lazy arrays while tracing
from . import cuda_blas, cuda_runtime as rt
from .cpu_symbolic import sized_alike
from .cuda_schedule import index_type, launch_info, launch_shape, schedule, \
    serial_reductions_fit as _serial_reductions_fit, symbolic_info
from .device_array import DeviceArray
from .kernel_inputs import KernelInputs, layout_mode, layout_params
from .program_base import ProgramBase

# np.dot is np.matmul for operands of at most two axes
_PRODUCTS = (np.matmul, np.dot)
_PTX = {}   # source -> (ptx, nvrtc ms): a size seen before compiles nothing
# (native module, kernel name) -> its loaded function: a symbolic kernel placed at every k of a loop is
# loaded once (module loads are never undone, as the CPU JIT's code)
_LOADED = {}


def compile_source(source, name):
    """(ptx, nvrtc_ms, cached) for CUDA C source, for the device's architecture."""
    got = _PTX.get(source)
    if got is not None:
        return got[0], 0.0, True
    r = rt.native().compile_ptx(source, name, rt.arch(), rt.NVRTC_OPTIONS)
    _PTX[source] = (r["ptx"], r["ms"])
    return r["ptx"], r["ms"], False


class CompileDeadline(Exception):
    """The call's compile budget ran out between two NVRTC compiles (trace/budget.py):
    the kernels compiled so far stay in _PTX, and the next call goes on from there."""


class CudaKernel:
    def __init__(self, kernel, info, ptx, input_pos, output_pos):
        self.kernel = kernel
        self.info = info
        self.ptx = ptx
        self.input_pos = input_pos
        self.output_pos = output_pos
        self.function = None       # loaded on first run: lower() needs no GPU
        self.scratch = []          # device buffers of the grid scheme
        # per input: (shape, strides, dtype) last checked by _on_device, and the stride
        # parameters it gave; a call whose input has that layout skips the checks
        self.layouts = [None] * len(input_pos)
        self.out_layouts = None    # per output: (nbytes, shape, dtype, strides)

    def load(self, sm_count):
        shared = not self.info.scratch    # (a kernel with scratch has buffers of its own)
        # by the native module too: a function loaded by the tests' fake_cuda, launched
        # by the driver, was a segmentation fault in the GPU machine's suite
        key = (rt.native(), self.kernel.name)
        r = _LOADED.get(key) if shared else None
        if r is None:
            r = rt.native().load(self.ptx, self.kernel.name)
            if shared:
                _LOADED[key] = {"function": r["function"], "load_ms": 0.0}
        self.function = r["function"]
        self.grid, self.block = launch_shape(self.info, sm_count)
        for name, ctype_, per_block in self.info.scratch:
            size = 8 * max(1, self.grid * per_block)
            buf = rt.native().Buffer(size)
            rt.native().upload(buf, 0, np_base.zeros(size, np.uint8))  # the ticket starts at 0
            self.scratch.append(buf)
        return r["load_ms"]


class Program(ProgramBase):
    """A graph compiled for the GPU: steps over graph positions, as backends/cpu.Program."""

    target = "cuda"
    kinds = KINDS   # no complex: complex ops run as NumPy steps between kernels
    gathers = True  # integer-array reads (codegen/cpp.py Emitter._gather_index)

    def __init__(self, leaves, pending, outputs, load=True, deadline=None):
        self.deadline = deadline   # perf_counter() past which no new kernel is compiled
        super().__init__(leaves, pending, outputs)
        pos = self.pos
        self.compile_ms = {"fusion": self.fusion_ms, "codegen": 0.0, "nvrtc": 0.0, "load": 0.0}
        self.cache = "memory"
        self.steps, self.kernels = [], []
        self._views = {}   # step position -> how to take that view of a device leaf
        self._sm_count = rt.device_info()["multiprocessors"] if load else 132
        symbolic = sized_alike(self.plan.steps)
        for i, step in enumerate(self.plan.steps):
            if step[0] == "numpy":
                self.steps.append(("numpy", pos[id(step[1])]))
                self._plan_view(step[1], pos)
            else:
                self.steps.append(("kernel", self._build(step[1], step[2], pos, i in symbolic)))
        if load:
            for ck in self.kernels:
                self.compile_ms["load"] += ck.load(self._sm_count)
        self.signature = self.shapes_of(self.nodes)
        self._examples = None  # strides are in the kernels now; do not keep arrays alive
        self.last_timings = []   # kernel times reach the session through cuda_runtime
        self.runs = 0
        # (segment number, its kernels) -> LaunchGraph; None when graphs are off
        # (NPC_CUDA_GRAPHS=0) or the driver refused one (graph_refusal says why)
        self._graphs = {} if rt.GRAPHS else None
        self._flag = None           # see _flag_word
        self._flag_zeroed = False
        self.graph_refusal = "" if rt.GRAPHS else "CUDA graphs are off (NPC_CUDA_GRAPHS=0)"
        self.graph_id, self.function = None, ""  # set by the engine: who the times are of

    def _build(self, roots, shape, pos, symbolic=False):
        t0 = time.perf_counter()

        scheme, block = schedule(self.new_kernel(roots, shape))
        attempts = [(scheme, block), ("block", 256)]
        if symbolic and _serial_reductions_fit(roots, shape):
            # the same kernel at every k of a loop whose slices move (cpu_symbolic.py):
            # rendered with its sizes read at run time, one NVRTC compile serves every
            # size (LU of 200 was 199 compiles, over a minute). The plain thread scheme:
            # its text alone does not depend on the sizes.
            attempts.insert(0, ("symbolic", 256))
        for attempt, threads in attempts:
            k = self.new_kernel(roots, shape)
            k.symbolic = attempt == "symbolic"
            buffer_of = KernelInputs(k, self.example_of, fixed_strides=False)
            info = symbolic_info(k) if k.symbolic else \
                launch_info(k, attempt, threads, buffer_of)
            try:
                render_cuda_kernel(k, buffer_of, info, index_type(k, self.example_of))
                break
            except Unsupported:
                continue
        order = buffer_of.order
        t1 = time.perf_counter()
        if self.deadline is not None and t1 > self.deadline and k.source not in _PTX:
            raise CompileDeadline(f"{len(self.kernels)} kernels compiled")
        ptx, ms, cached = compile_source(k.source, k.name)
        self.compile_ms["codegen"] += (t1 - t0) * 1e3
        self.compile_ms["nvrtc"] += ms
        if not cached:
            self.cache = "miss"
        ck = CudaKernel(k, info, ptx, [pos[id(n)] for n in order],
                        [pos[id(node)] for node, _ in roots])
        self.mark_written(roots)
        self.kernels.append(ck)
        return ck

    def _plan_view(self, node, pos):
        """A view of a device leaf, or of an array one of our kernels writes (C order,
        known shape), is the same arithmetic on every call with the same input layout:
        remember it, so a call builds the view without asking NumPy."""
        ex = self._examples.get(id(node))
        src = node.inputs[0] if len(node.inputs) == 1 else None
        if src is None or ex is None:
            return
        if src.is_leaf:
            v = src.value
            if not isinstance(ex, DeviceArray) or not isinstance(v, DeviceArray) or \
                    ex.buffer is not v.buffer:
                return
            delta, writeable = ex.offset - v.offset, ex._writeable
        else:
            # ex is a view of the host stand-in of a kernel output (program_base)
            v = self._examples.get(id(src))
            if id(src) not in self.written or type(v) is not np.ndarray or \
                    type(ex) is not np.ndarray or not np.may_share_memory(ex, v):
                return
            delta = ex.__array_interface__["data"][0] - v.__array_interface__["data"][0]
            writeable = True
        self._views[pos[id(node)]] = (pos[id(src)], (v.shape, v.strides, v.dtype),
                                      (ex.shape, ex.dtype, ex.strides, delta, writeable))

    def run_values(self, leaf_values):
        """Run on this call's leaf values (the graph's inputs, in graph order). Runs of
        kernels between NumPy steps are launched together: directly on the first run,
        as one CUDA graph from the second (LaunchGraph: no host gaps between kernels,
        no launch latency in their times)."""
        vals = list(leaf_values) + [None] * (len(self.metas) - self.n_leaves)
        run, segment = [], 0
        self._flag_zeroed = False
        # inputs copied to the device live until their run is queued: freed before, the
        # pool would hand their memory to a later kernel's output in the same run
        keep = []
        for kind, step in self.steps:
            if kind == "numpy":
                fast = self._views.get(step)
                if fast is not None:
                    v = vals[fast[0]]
                    if type(v) is DeviceArray and (v.shape, v.strides, v.dtype) == fast[1]:
                        shape, dtype, strides, delta, writeable = fast[2]
                        vals[step] = DeviceArray.with_layout(v.buffer, shape, dtype, strides,
                                                         v.offset + delta, writeable)
                        continue
                if run:
                    self._launch(segment, run)
                    run, segment = [], segment + 1
                vals[step] = self.run_numpy_step(step, vals)
                continue
            ck = step
            outs = _outputs(ck, self.metas)
            pointers, params = [o.pointer for o in outs], []
            for i, (b, p) in enumerate(zip(ck.kernel.inputs, ck.input_pos)):
                v, layout = vals[p], ck.layouts[i]
                if type(v) is not DeviceArray or layout is None or \
                        (v.shape, v.strides, v.dtype) != layout[0]:
                    v = _on_device(v, b)
                    keep.append(v)
                    layout = ck.layouts[i] = ((v.shape, v.strides, v.dtype), [
                        s // v.itemsize for s in v.strides] if b.param is not None else [])
                params.extend(layout[1])
                pointers.append(v.pointer)
            params.extend(ck.kernel.extents)    # a symbolic kernel's sizes (none else)
            pointers.extend(buf.ptr for buf in ck.scratch)
            if ck.kernel.flagged:
                pointers.append(self._flag_word().ptr)
            if ck.info.n_out > 0:
                run.append((ck, pointers, params))
            for p, o in zip(ck.output_pos, outs):
                vals[p] = o
        if run:
            self._launch(segment, run)
        self.runs += 1
        rt.record_timings(SESSION)  # finished kernels only: a call does not wait for its own
        if self._flag is not None:
            self._check_flag()
        return [vals[p] for p in self.output_pos]

    def run_numpy_step(self, pos, vals):
        """A matrix product of device arrays goes to cuBLAS (backends/cuda_blas.py);
        every other step, and a product cuBLAS does not take, is NumPy's."""
        fn, args, kwargs, inputs = self.calls[pos]
        if fn in _PRODUCTS and not kwargs and len(inputs) == 2 and \
                (fn is np.matmul or max(len(self.metas[i][0]) for i in inputs) <= 2):
            got = cuda_blas.matmul(vals[inputs[0]], vals[inputs[1]])
            if got is not None:
                return got
        return super().run_numpy_step(pos, vals)

    def _flag_word(self):
        """The device word flagged kernels set (codegen/cuda.py), zeroed once per run."""
        if self._flag is None:
            self._flag = rt.native().Buffer(4)
        if not self._flag_zeroed:
            rt.native().upload(self._flag, 0, _ZERO_WORD)
            self._flag_zeroed = True
        return self._flag

    def _check_flag(self):
        """A kernel met values NumPy must handle (an out-of-range float -> int cast, a
        negative integer power, an integer division by zero): the engine reruns the
        graph in NumPy, as on the CPU. Reading the word waits for the run: only programs
        with such kernels pay it."""
        word = np_base.zeros(1, np.int32)
        rt.native().download(word, self._flag, 0)
        if word[0]:
            raise RuntimeError("values NumPy must handle (an out-of-range cast, a negative "
                               "integer power or an integer division by zero)")

    def _launch(self, segment, run):
        """Queue a run of kernels; their times are recorded by cuda_runtime when done."""
        graph = None
        if self._graphs is not None and self.runs > 0:
            # keyed by the kernels the run holds, not by its place alone: a view step
            # taken on the device in one call and by NumPy in the next splits the runs
            # differently, and a graph made for another run failed its launch
            # (wave_point_source: "one pointer and one parameter list per kernel")
            key = (segment,) + tuple(id(ck) for ck, _, _ in run)
            graph = self._graphs.get(key) or self._make_graph(key, run)
        if graph is not None:
            graph.launch([r[1] for r in run], [r[2] for r in run])
        else:
            cu = rt.native()
            for ck, pointers, params in run:
                cu.launch(ck.function, ck.grid, ck.block, pointers, params, True)
        rt.launched([ck.kernel.name for ck, _, _ in run], self.graph_id, self.function)

    def _make_graph(self, key, run):
        """The run as a CUDA graph, or None (launched directly from now on, saying why)."""
        try:
            graph = rt.native().LaunchGraph(
                [(ck.function, ck.grid, ck.block, pointers, params) for ck, pointers, params in run])
        except Exception as e:
            self._graphs = None
            self.graph_refusal = f"CUDA graph not used: {e}"
            return None
        self._graphs[key] = graph
        return graph


_ZERO_WORD = np.zeros(1, np.int32)


def _outputs(ck, metas):
    """New device arrays for a kernel's outputs (their layouts are worked out once)."""
    if ck.out_layouts is None:
        ck.out_layouts = []
        for p in ck.output_pos:
            shape, dtype = metas[p]
            d = DeviceArray(None, shape, dtype)
            ck.out_layouts.append((d.nbytes, d.shape, d.dtype, d.strides))
    buf = rt.native().Buffer
    return [DeviceArray.with_layout(buf(n), shape, dtype, strides, 0, True)
            for n, shape, dtype, strides in ck.out_layouts]


def _on_device(v, b):
    """A kernel input as a DeviceArray of the layout the kernel was compiled for."""
    if not isinstance(v, DeviceArray):
        v = DeviceArray.from_host(np.asarray(v))
    if any(s % v.itemsize for s in v.strides):
        v = v.copy() if v.flags.c_contiguous else DeviceArray.from_host(v.get())
    layout_params(v, b.dtype, b.shape, layout_mode(b), b.strides)
    return v
