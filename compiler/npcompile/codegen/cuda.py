"""Renders a fused kernel as CUDA C for NVRTC: the same kernel IR and scalar operations as
the C++ renderer (codegen/cpp.py, cpp_ops.py), a different iteration scheme.

Schemes (chosen by codegen/cuda_schedule.py):
  thread  one thread per output element (grid-stride loop); reductions run serially in
          the thread (k-means' argmin over 2 means, column sums read coalesced)
  warp    one warp per output element: its top-level reductions are split across the 32
          lanes and combined with shuffles (row sums of 1000 int8s)
  block   one block per output element, combined through shared memory (long reductions)
  grid    one output element, its reductions split across the whole grid: each block
          writes a partial, the last block to finish combines them in block order, so
          the result is deterministic for a given launch shape (np.mean over 10M values).
          Full reductions nested in it (the mean inside np.std) are levels of one
          launch: the blocks of level l + 1 wait for level l's result (see _grid)

Kernel signature: extern "C" __global__ void k(outputs..., inputs..., [scratch...,]
NpcP P) where P.v[] holds the element strides of inputs whose layout is only known at
run time."""
import hashlib
import math
import re
from dataclasses import dataclass

import numpy as np

from ..fusion.expr import top_reduces
from . import cpp_ops, cpp_sums, cuda_packed
from .numpy_sum_order import NotNumPyOrder
from .cpp import _GATHERED, Emitter, Scope, _render, _times
from .cpp_ops import ctype

# the dtype kinds this renderer computes: no complex (cpp_complex's structs are host
# C++), so fusion keeps complex ops out of GPU kernels and they run as NumPy steps
KINDS = "biuf"
EMPTY = "0x7fffffffffffffffLL"   # the index of an argmin/argmax lane that saw nothing
# 32-bit indices below this (backends/cuda_schedule.index_type): grid-stride loops step
# past the end once, by up to 8 (unrolled) strides of at most 64 * 132 SMs * 512 threads
INT32_LIMIT = 2 ** 31 - 2 ** 27
# Bytes each thread loads per loop trip before its first use: a thread that waits for one
# 4-byte load before asking for the next leaves HBM idle. Measured on the H200 (kernel
# times, 16 / 32 / 64): mc_pi float32 26.2 / 27.6 / 28.6 us, mul float32 292 / 303 / 314
# us, sincos within 5%. 0: one element per trip, the loops as they were.
TILE_BYTES = 16
MAX_UNROLL = 8
# Arrays read or written along the loop's own index move as one 8- or 16-byte vector per
# lane per trip (ld.global.v4 / st.global.v4) when their addresses are aligned. Measured
# on the H200 (kernel times in a CUDA graph): hand-written float4 kernels ran mc_pi
# float32 in 23.0 us against 25.6 for four scalar loads in flight, sincos float32 in
# 23.4 against 25.5 (the 40 MB -> 40 MB copy kernel: 23.3). False: scalar tiles only.
VECTOR_ACCESS = True
# the CUDA vector type of n elements of a C type
_VECTOR_TYPES = {("float", 4): "float4", ("float", 2): "float2", ("i32", 4): "int4",
                 ("i32", 2): "int2", ("u32", 4): "uint4", ("u32", 2): "uint2",
                 ("double", 2): "double2", ("i64", 2): "longlong2", ("u64", 2): "ulonglong2"}
_LANES = "xyzw"
# Grid levels after the first walk the data backwards (see _tiled_lanes); False: every
# level forwards. H200, np.std of 10M values, kernel times forwards / backwards (two
# runs): float64 52.5 / 45.8 and 52.1 / 45.6 us, float32 34.1 / 35.0 and 35.2 / 35.3 us.
# Part of float64's gain is the next call on the same array: the first level then finds
# the start of it in L2 (timer stamps: level 0 took 21.0 us after a forwards launch,
# 17.9 after a backwards one).
REVERSE_LEVELS = True
# Nanoseconds a block waiting for an earlier grid level sleeps between polls; 0: spins.
# Kernel ends (np.std of 10M values, float32 / float64): 0 ns 32.3 / 41.5 us, 256 ns
# 31.7 / 42.8 us, 2000 ns 33.3 / 44.0 us.
WAIT_NS = 256

PRELUDE = """\
// The scalar operations are cpp_ops' C++: its GCC builtins spelled for NVRTC.
#define __builtin_inf() __longlong_as_double(0x7ff0000000000000LL)
#define __builtin_inff() __int_as_float(0x7f800000)
#define __builtin_nan(s) __longlong_as_double(0x7ff8000000000000LL)
#define __builtin_nanf(s) __int_as_float(0x7fc00000)
#define __builtin_signbit(x) signbit(x)
""" + cpp_ops.PRELUDE + """\
// Warp shuffles move 32- and 64-bit words: narrower types travel as int.
template <typename T> __device__ __forceinline__ T npc_down(T v, int o) { return __shfl_down_sync(0xffffffffu, v, o); }
template <typename T> __device__ __forceinline__ T npc_bcast(T v) { return __shfl_sync(0xffffffffu, v, 0); }
#define NPC_NARROW(T) \\
  template <> __device__ __forceinline__ T npc_down<T>(T v, int o) { return (T)__shfl_down_sync(0xffffffffu, (int)v, o); } \\
  template <> __device__ __forceinline__ T npc_bcast<T>(T v) { return (T)__shfl_sync(0xffffffffu, (int)v, 0); }
NPC_NARROW(bool) NPC_NARROW(i8) NPC_NARROW(u8) NPC_NARROW(i16) NPC_NARROW(u16)
"""


@dataclass(frozen=True)
class CudaKernelInfo:
    """A kernel's launch schedule, decided before it is rendered (backends/cuda_schedule.py
    launch_info) and only read here: the scheme, threads per block, elements per thread,
    vector width, grid levels and the scratch buffers the launch allocates."""

    scheme: str
    block: int
    n_out: int                   # output elements (the iteration space)
    unroll: int = 1              # thread scheme: output elements per thread per trip
    vector: int = 0              # thread scheme, pointwise: elements per vector access
    levels: int = 1              # grid scheme: passes over the data, each its own blocks
    scratch: tuple = ()          # (name, C type, elements per block)


class Unsupported(Exception):
    """This kernel cannot be rendered in the chosen scheme (the caller picks another)."""


class CudaEmitter(Emitter):
    double_of_bits = "__longlong_as_double({})"   # NVRTC's spelling
    vector_extrema = False   # its reductions split across lanes (_reduce_split)
    column_blocks = False    # and its kernels schedule their own threads

    def __init__(self, kernel, buffer_of, info, index_type):
        super().__init__(kernel, buffer_of)
        self.info = info
        self.IT = index_type
        self.group_scope = None    # the scope of one output element (the grid-stride body)
        self.grid_reduces = {}     # grid scheme: id(reduce Expr) -> prepared result name
        self.blk, self.nblk = "blockIdx.x", "gridDim.x"   # grid scheme: this level's blocks
        self.reverse = False       # grid scheme: this level's lanes walk the data backwards
        self.packed = False        # cuda_packed's helpers are used
        self.rotate = None         # while emitting a tile's step (see _tile)
        self.vstore = None         # while emitting a vector tile's step: {out index: U}
        self.sincos = _sincos_operands(kernel.roots, self._signature)

    def value(self, e, idx):
        rot = self.rotate
        if e.kind == "load" and rot is not None and self._home(idx) is rot["scope"] and \
                not any(_GATHERED.search(s) for s in idx):
            # an element of the tile: loaded before the step loop, read from a register
            # (a gathered read is not: its index is computed in the step)
            key = (self._signature(e), idx)
            if key not in rot["names"]:
                rot["names"][key] = f"ld{self.counter + 1}"
                self.counter += 1
                rot["loads"].append((e, idx, rot["names"][key]))
            return rot["names"][key] + "_0"
        return super().value(e, idx)

    def _expr(self, e, idx):
        if e.kind == "pw" and e.op in ("sin", "cos") and self._signature(e.inputs[0]) in self.sincos:
            return self._sincos(e, idx)
        return super()._expr(e, idx)

    def _sincos(self, e, idx):
        """sin(x) and cos(x) of one x from one sincos call: one range reduction instead of
        two (sincos float32 was bound on instruction issue); CUDA's sincos returns the
        same bits as its sin and cos."""
        x = e.inputs[0]
        v = self.value(x, idx)
        got = self._lookup(("sincos", v))
        if got is None:
            T = ctype(e.dtype)
            got = (self.fresh("sn"), self.fresh("cs"))
            home = self._home(idx)
            home.emit(f"{T} {got[0]}, {got[1]}; {'sincosf' if T == 'float' else 'sincos'}({v}, &{got[0]}, &{got[1]});")
            home.memo[("sincos", v)] = got
        return got[0] if e.op == "sin" else got[1]

    # ----- reductions ------------------------------------------------------------------
    def _reduce(self, e, idx):
        # A reduction whose value depends only on the output element is emitted before
        # the loops that read it (the emitter hoists it there): all lanes of the group
        # reach it together, so they can share its work.
        top = self._home(idx) in (self.group_scope, self.root)
        if self.info.scheme == "grid" and (top or id(e) in self.grid_reduces):
            name = self.grid_reduces.get(id(e))
            if name is None:
                raise Unsupported("a reduction the grid scheme cannot combine in one pass")
            return name
        return self._reduce_split(e, idx, top and self.info.scheme in ("warp", "block"))

    def _reduce_split(self, e, idx, cooperative, grid=False):
        """A reduction whose outermost reduced axis is split across the group's lanes when
        `cooperative` (then combined), else run by each thread alone."""
        if not cooperative and not grid and narrow_float_sum(e):
            # one thread adds the terms: in NumPy's order and its float32 (the CPU's
            # cpp_sums), NumPy's bits. Accumulated in double, a 9-tap kernel's
            # normalization rounded apart from NumPy's, and an image cast to uint8
            # after the blur differed by one (unsharp masking)
            try:
                return cpp_sums.render(self, e, idx)
            except NotNumPyOrder:
                pass    # a layout whose order NumPy keeps to itself: added in double
        op, x = e.op, e.inputs[0]
        rid, xidx, rvars = self.reduce_index(e, idx)
        T, xT, AT = ctype(e.dtype), ctype(x.dtype), _acc_type(e)
        acc = f"acc{rid}"
        home = self._home(idx) if not grid else self.root
        saved = self.cur
        self.cur = home
        arg = op in ("argmin", "argmax")
        if arg:
            self.cur.emit(f"{xT} best{rid} = 0; i64 {acc} = 0; bool first{rid} = true;")
        else:
            self.cur.emit(f"{AT} {acc} = {self._init(op, e.dtype)};")
        kahan = op == "sum" and x.dtype == np.float64
        if kahan:
            self.cur.emit(f"double comp{rid} = 0;")
        if cooperative and len(rvars) == 1 and self._packed_sum(e, rid, acc, AT, rvars, xidx, grid):
            pass
        elif cooperative and not self._computes_reduce(x) and (
                self._flat_pays(rvars, grid) or len(rvars) == 1 and _unroll(_load_bytes(x)) > 1) and (
                self.IT == "i64" or math.prod(n for _, n in rvars) < INT32_LIMIT):
            self._tiled_lanes(e, rid, acc, rvars, xidx, grid, kahan)
        else:
            for depth, (v, n) in enumerate(rvars):
                if depth == 0 and cooperative:
                    lane, width = self._lane(grid)
                    self.open_loop(f"#pragma unroll 4\n  for ({self.IT} {v} = {lane}; {v} < {n}; {v} += {width})", [v])
                else:
                    self.open_loop(f"for ({self.IT} {v} = 0; {v} < {n}; ++{v})", [v])
            self.cur.emit(self._accumulate(op, acc, self.value(x, tuple(xidx)), rid, rvars, x.dtype, kahan))
            for _ in rvars:
                self.close_loop()
        if cooperative:
            if arg:
                self.cur.emit(f"if (first{rid}) {acc} = {EMPTY};")
            self._combine_lanes(op, rid, acc, AT, xT, x.dtype, grid, rid)
        self.cur = saved
        if grid:
            return acc  # the grid's combine happens later (_grid_prepare)
        return self._narrow(acc, AT, T, arg, home)

    def _flat_pays(self, rvars, grid):
        """Several reduced axes walked as one flat index: worth it when the outermost
        one has fewer rows than the group has lanes (lanes would idle). Otherwise the
        nested loops are better: terms that depend only on the outer axes are computed
        once per row there, not once per element (normalize_outer's last kernel divided
        by X's std per term, 2.6x slower, when it went flat)."""
        if len(rvars) < 2:
            return False
        lanes = 1 << 30 if grid else (32 if self.info.scheme == "warp" else self.info.block)
        return rvars[0][1] < lanes

    def _computes_reduce(self, x):
        """Whether x holds a reduction run in place (one of an earlier grid level is a
        name already: x is as light as a pointwise operand)."""
        return any(e.kind == "reduce" and id(e) not in self.grid_reduces for e in nodes(x))

    def _accumulate(self, op, acc, val, rid, rvars, xdt, kahan):
        if kahan:
            # float64 terms: a serial run of thousands of terms per lane would lose to
            # NumPy's pairwise sum; compensated, it is exact to the last bits
            return cpp_ops.kahan_add("double", acc, val, f"comp{rid}")
        return self._combine(op, acc, val, rid, rvars, xdt)

    def _tiled_lanes(self, e, rid, acc, rvars, xidx, grid, kahan):
        """The lane loop of a split reduction in tiles (see _tile): each lane adds the
        same terms in the same order as one element per trip did. Several reduced axes
        are walked as one flat index: a lane per row of a C-ordered array read nothing
        coalesced, and only as many lanes worked as there were rows (np.std of 1000 x
        2000 values on the grid kept 1000 of 270k threads busy)."""
        x = e.inputs[0]
        names = [v for v, _ in rvars]
        n = math.prod(m for _, m in rvars)
        flat = names[0] if len(rvars) == 1 else f"f{rid}"
        lane, width = self._lane(grid)
        # a later grid level walks the data from the end: the last megabytes the level
        # before it read are still in L2. Not an arg reduction: a lane's first extreme
        # must be its lowest index, as NumPy's
        reverse = self.reverse and e.op not in ("argmin", "argmax")

        def index_lines(at):
            lines = [f"const {self.IT} {flat} = {f'{n - 1} - ({at})' if reverse else at};"]
            if len(rvars) > 1:
                inner = n
                for d, (v, m) in enumerate(rvars):
                    inner //= m
                    expr = flat if inner == 1 else f"{flat} / {inner}"
                    lines.append(f"const {self.IT} {v} = {expr if d == 0 else f'({expr}) % {m}'};")
            return lines

        def body():
            val = self.value(x, tuple(xidx))
            self.cur.emit(self._accumulate(e.op, acc, val, rid, rvars, x.dtype, kahan))
        bound = names + ([flat] if len(rvars) > 1 else [])
        # vectors only when the lane loop walks the whole of a 1-D operand: a row of a
        # larger array starts at the row's offset, which the vector index does not add
        if len(rvars) == 1 and x.shape == (n,) and not reverse and e.op not in ("argmin", "argmax") and \
                self._vector_tile(f"t{rid}", lane, width, n, index_lines, bound, body, _heavy(x),
                                  [x], x.shape):
            return
        self._tile(f"t{rid}", lane, width, n, _unroll(_load_bytes(x)), index_lines, bound, body,
                   _heavy(x))

    def _tile(self, t, first, width, n, U, index_lines, names, body, heavy, trip=None):
        """for (t = first; t < n; t += trip), elements t + k * width for k < U: the loads
        of all U first (an index past the end rereads the last element), then the body in a loop
        over the U elements, the loaded values moving down a register per step. One
        load at a time left HBM mostly idle (sincos float32 at half the copy bandwidth).
        A `heavy` body (libm calls) is not unrolled: U copies of sin and cos multiplied
        NVRTC's time; a light one is, and the register moves vanish.
        index_lines(expr) binds `names` for the element at linear position expr."""
        IT = self.IT
        self.open_loop(f"for ({IT} {t} = {first}; {t} < {n}; {t} += {trip or f'{U} * {width}'})", [])
        tile = self.cur
        u = f"u{t}"
        step, loads = self._tile_step(U, f"{u} < {U} && {t} + {u} * {width} < {n}", f"{t} + {u} * {width}",
                                      index_lines, names, body, heavy)
        for k in range(U):
            at = t if k == 0 else f"({t} + {k} * {width} < {n} ? {t} + {k} * {width} : {n - 1})"
            tile.emit("{ " + " ".join(index_lines(at)) + " "
                      + " ".join(f"{name}_{k} = {self._load(e, idx)};" for e, idx, name in loads) + " }")
        tile.lines.append(step)
        self.close_loop()

    def _tile_step(self, U, cond, at, index_lines, names, body, heavy, vstore=None):
        """In an open tile loop: the loop over its U elements (`cond` bounds the counter
        u<t>, `at` is the element's position), each step the body with the tile's loaded
        values moving down a register. The step is taken out of the tile, so that the
        caller can emit the loads (registers declared here) before putting it back.
        (step, [(load Expr, index, register name)])"""
        tile = self.cur
        u = cond.split(" ", 1)[0]
        self.open_loop(f"#pragma unroll{' 1' if heavy else ''}\n  for (int {u} = 0; {cond}; ++{u})", names)
        for line in index_lines(at):
            self.cur.emit(line)
        saved = self.rotate, self.vstore
        self.rotate, self.vstore = {"scope": self.cur, "names": {}, "loads": []}, vstore
        body()
        loads = self.rotate["loads"]
        self.rotate, self.vstore = saved
        for e, _, name in loads:
            self.cur.emit(" ".join(f"{name}_{k} = {name}_{k + 1};" for k in range(U - 1)))
        self.close_loop()
        step = tile.lines.pop()
        for e, _, name in loads:
            tile.emit(f"{ctype(e.dtype)} " + ", ".join(f"{name}_{k}" for k in range(U)) + ";")
        return step, loads

    def _vector_tile(self, t, first, width, n, index_lines, names, body, heavy, exprs, shape,
                     outputs=()):
        """The loop of _tile with each lane taking U consecutive elements per trip: arrays
        laid out along the loop's index (C-contiguous, of the loop's shape) are read and
        written as one vector of U elements, the others element by element. Only when
        all of their addresses are aligned at run time, and only over whole vectors: one
        scalar loop takes the rest (and everything, when an address is not aligned).
        U, or 0 emitting nothing where no array qualifies."""
        U, vec_in, vec_out = vector_plan(exprs, outputs, shape, n, self.buffer_of)
        if not U:
            return 0

        def vtype(dtype):
            return _VECTOR_TYPES.get((ctype(dtype), U))
        IT, nv = self.IT, n // U
        aligned = " | ".join([f"(unsigned long long)in{i}" for i in vec_in] +
                             [f"(unsigned long long)out{i}" for i in vec_out])
        # U elements of the widest type are 16 bytes (vector_plan): 16-byte aligned
        self.cur.emit(f"const bool npc_vec{t} = (({aligned}) & 15) == 0;")
        self.open_loop(f"if (npc_vec{t}) for ({IT} {t} = {first}; {t} < {nv}; {t} += {width})", [t])
        tile = self.cur
        u = f"u{t}"
        step, loaded = self._tile_step(U, f"{u} < {U}", f"{U} * {t} + {u}", index_lines, names, body,
                                       heavy, {i: U for i in vec_out})
        for e, idx, name in loaded:
            b = self.buffer_of(e)
            if b.index in vec_in and vec_in[b.index].op is e.op:
                w = self.fresh("w")
                tile.emit(f"{{ const {vtype(e.dtype)} {w} = ((const {vtype(e.dtype)}*)in{b.index})[{t}]; "
                          + " ".join(f"{name}_{k} = {w}.{_LANES[k]};" for k in range(U)) + " }")
            else:
                for k in range(U):
                    tile.emit("{ " + " ".join(index_lines(f"{U} * {t} + {k}")) + " "
                              + f"{name}_{k} = {self._load(e, idx)}; }}")
        for i, o in vec_out.items():
            tile.emit(f"{ctype(o.dtype)} " + ", ".join(f"st{i}_{k}" for k in range(U)) + ";")
        tile.lines.append(step)
        for i, o in vec_out.items():
            tile.emit(f"(({vtype(o.dtype)}*)out{i})[{t}] = make_{vtype(o.dtype)}("
                      + ", ".join(f"st{i}_{k}" for k in range(U)) + ");")
        self.close_loop()
        # the rest: the elements after the last whole vector, or all of them
        self.open_loop(f"for ({IT} {t} = (npc_vec{t} ? {nv * U} : 0) + {first}; {t} < {n}; {t} += {width})",
                       names + [t])
        for line in index_lines(t):
            self.cur.emit(line)
        body()
        self.close_loop()
        return U

    def _narrow(self, acc, AT, T, arg, scope):
        """Float32 sums accumulate in double: the result is rounded once at the end."""
        if AT == T or arg:
            return acc
        name = self.fresh()
        scope.emit(f"const {T} {name} = ({T}){acc};")
        return name

    def _packed_sum(self, e, rid, acc, AT, rvars, xidx, grid):
        """A lane-split sum of 1- or 2-byte integers along their contiguous rows (the
        int8 row sum): cuda_packed reads 16-byte words. False where it does not apply."""
        ld = cuda_packed.packed_load(e, self.buffer_of)
        (v, n), = rvars
        if ld is None or v != xidx[-1]:
            return False
        lane, width = self._lane(grid)
        static = None if grid else (32 if self.info.scheme == "warp" else self.info.block)
        words = cuda_packed.words_per_lane(n, 16 // ld.dtype.itemsize, static)
        cuda_packed.emit_packed_sum(self, ld, acc, AT, rid, v, n, xidx, lane, width, words)
        return True

    def _lane(self, grid):
        if grid:
            return f"({self.blk} * blockDim.x + threadIdx.x)", f"({self.nblk} * blockDim.x)"
        if self.info.scheme == "warp":
            return "(threadIdx.x & 31)", "32"
        return "threadIdx.x", "blockDim.x"

    # ----- combining lanes ----------------------------------------------------------------
    def _merge(self, op, rid, acc, other_acc, other_best, xdt):
        """acc (and best) take the other lane's partial: deterministic, NaN as NumPy."""
        if op not in ("argmin", "argmax"):
            return self._combine(op, acc, other_acc, rid, [], xdt)
        best, cmp = f"best{rid}", "<" if op == "argmin" else ">"
        if xdt.kind == "f":
            better = (f"(({other_best} != {other_best}) ? (!({best} != {best}) || {other_acc} < {acc}) : "
                      f"(!({best} != {best}) && ({other_best} {cmp} {best} || "
                      f"({other_best} == {best} && {other_acc} < {acc}))))")
        else:
            better = f"({other_best} {cmp} {best} || ({other_best} == {best} && {other_acc} < {acc}))"
        return (f"if ({other_acc} != {EMPTY} && ({acc} == {EMPTY} || {better})) "
                f"{{ {best} = {other_best}; {acc} = {other_acc}; }}")

    def _warp_combine(self, op, rid, acc, AT, xT, xdt):
        arg = op in ("argmin", "argmax")
        self.cur.emit(f"for (int o{rid} = 16; o{rid} > 0; o{rid} >>= 1) {{")
        if arg:
            self.cur.emit(f"  const {xT} ob{rid} = npc_down(best{rid}, o{rid}); "
                          f"const i64 oa{rid} = npc_down({acc}, o{rid});")
            self.cur.emit("  " + self._merge(op, rid, acc, f"oa{rid}", f"ob{rid}", xdt))
        else:
            self.cur.emit(f"  const {AT} oa{rid} = npc_down({acc}, o{rid});")
            self.cur.emit("  " + self._merge(op, rid, acc, f"oa{rid}", None, xdt))
        self.cur.emit("}")

    def _combine_lanes(self, op, rid, acc, AT, xT, xdt, grid, tag):
        """All lanes end with the group's result; under `grid` thread 0 is left holding
        the block's partial in sh{tag}[32]. `tag` names this combine's shared arrays."""
        arg = op in ("argmin", "argmax")
        best = f"best{rid}"
        self._warp_combine(op, rid, acc, AT, xT, xdt)
        if self.info.scheme == "warp" and not grid:
            self.cur.emit(f"{acc} = npc_bcast({acc});" + (f" {best} = npc_bcast({best});" if arg else ""))
            return
        # block: one partial per warp through shared memory, combined by warp 0
        ident = EMPTY if arg else self._identity(op, AT, xdt)
        sh, shb = f"sh{tag}", f"shb{tag}"
        emit = self.cur.emit
        emit(f"__shared__ {'i64' if arg else AT} {sh}[33];")
        if arg:
            emit(f"__shared__ {xT} {shb}[33];")
        emit(f"if ((threadIdx.x & 31) == 0) {{ {sh}[threadIdx.x >> 5] = {acc};"
             + (f" {shb}[threadIdx.x >> 5] = {best};" if arg else "") + " }")
        emit("__syncthreads();")
        emit("if (threadIdx.x < 32) {")
        emit(f"  {acc} = threadIdx.x < (blockDim.x >> 5) ? {sh}[threadIdx.x] : {ident};"
             + (f" if (threadIdx.x < (blockDim.x >> 5)) {best} = {shb}[threadIdx.x];" if arg else ""))
        self._warp_combine(op, rid, acc, AT, xT, xdt)
        emit(f"  if (threadIdx.x == 0) {{ {sh}[32] = {acc};" + (f" {shb}[32] = {best};" if arg else "") + " }")
        emit("}")
        emit("__syncthreads();")
        if grid:
            return  # thread 0 publishes the block's partial (see _grid_prepare)
        emit(f"{acc} = {sh}[32];" + (f" {best} = {shb}[32];" if arg else ""))
        emit("__syncthreads();")  # the arrays are written again for the next element

    def _identity(self, op, AT, xdt):
        if op == "sum" or op == "any":
            return "0"
        if op == "prod" or op == "all":
            return "1"
        dt = np.dtype(np.float64) if AT == "double" else xdt
        return self._init(op, dt)

    # ----- the grid scheme's two phases ---------------------------------------------------
    def _grid(self, idx):
        """One output element from reductions over the whole grid. A full reduction
        nested in another (np.std's mean) must be known before any lane can add a term
        of the outer one: each nesting depth is a level of the same launch, the grid
        split in `levels` equal parts. Blocks take their level in the order they start
        (a ticket, not blockIdx), so a block that waits for level l's result started
        after every block of level l did: those are running or done, and the wait
        ends whatever the GPU can hold at once. One launch, not a kernel per level: the
        launch path and the fusion plan stay one kernel per step, and the second pass
        finds part of the data in L2. Where the time goes (H200, np.std of 10M float32,
        timer stamps from the first block's start): level 0 streams until 12.3 us, its
        last block combines and publishes by 14.3, level 1 streams from 14.8 to 29.7,
        the end at 31.7. Level 1's last block starts streaming only at 17.7: it needs
        the slot of level 0's combining block, and every block has a fixed share."""
        levels = _grid_levels(self.k.roots, self._signature)
        L = len(levels)
        if L != self.info.levels:
            raise AssertionError(f"the schedule has {self.info.levels} grid levels, the kernel {L}")
        top, published = self.root, []
        if L > 1:
            emit = self.root.emit
            emit("__shared__ unsigned int npc_b;")
            emit("if (threadIdx.x == 0) npc_b = atomicAdd(npc_start, 1u);  // the order blocks start in")
            emit("__syncthreads();")
            emit(f"const unsigned int npc_nb = gridDim.x / {L}u;")
            emit("const unsigned int npc_level = npc_b / npc_nb, npc_blk = npc_b % npc_nb;")
            self.blk, self.nblk = "npc_blk", "npc_nb"
        for level, groups in enumerate(levels):
            if L > 1:
                self.root = self.cur = Scope(None)   # values of one level stay in its block
                top.lines.append((f"if (npc_level == {level}u)", self.root))
                self.reverse = REVERSE_LEVELS and level % 2 == 1
            if level:
                self._grid_wait(level, published)
            done = self._grid_prepare([g[0] for g in groups], level, level == L - 1)
            for group, (e, name) in zip(groups, done):
                for other in group[1:]:
                    self.grid_reduces[id(other)] = name
                if level < L - 1:
                    res = f"res{len(published)}"
                    T = "i64" if e.op in ("argmin", "argmax") else ctype(e.dtype)
                    self.root.emit(f"if (threadIdx.x == 0) {res}[0] = {name};")
                    published.append((group, T, res))
            if level < L - 1:
                self.root.emit("if (threadIdx.x == 0) { __threadfence(); "
                               f"atomicExch(npc_level_done, {level + 1}u); }}")
        self.group_scope = self.root
        self._write_outputs(idx, "0", lane0=True)
        if L > 1:
            self.root.emit("if (threadIdx.x == 0) { *npc_start = 0u; *npc_level_done = 0u; }")
        self.root = self.cur = top

    def _grid_wait(self, level, published):
        """A later level's blocks wait for the results of the levels before it, then
        read them (volatile: other blocks wrote them during this launch)."""
        emit = self.root.emit
        emit("if (threadIdx.x == 0) {")
        emit(f"  while (*(volatile unsigned int*)npc_level_done < {level}u) {{")
        if WAIT_NS:
            emit("#if __CUDA_ARCH__ >= 700")
            emit(f"    __nanosleep({WAIT_NS});  // polls of one address, not a flood of them")
            emit("#endif")
        emit("  }")
        emit("  __threadfence();")
        emit("}")
        emit("__syncthreads();")
        for group, T, res in published:
            name = self.fresh("pub")
            emit(f"const {T} {name} = *(volatile {T}*){res};")
            for e in group:
                self.grid_reduces[id(e)] = name

    def _grid_prepare(self, reduces, level=0, last=True):
        """Phase 1: each block's partial of every reduction of this level; the last block
        to finish reads them all back in block order and combines them the same way.
        [(reduction, name of its result)] in the last block, which goes on alone."""
        done = []
        for j, e in enumerate(reduces):
            if any(x.kind == "reduce" and math.prod(x.shape) == 1 and id(x) not in self.grid_reduces
                   for x in nodes(e.inputs[0])):
                raise Unsupported("a full reduction nested in one of its own level")
            rid = str(self.counter + 1)
            part = f"part{level}_{j}"   # the scratch names grid_scratch() gives the schedule
            # every index of a full reduction's result is 0
            name = self._reduce_split(e, tuple("0" for _ in e.shape), True, grid=True)
            op = e.op
            arg = op in ("argmin", "argmax")
            AT, xT = _acc_type(e), ctype(e.inputs[0].dtype)
            self.root.emit(f"if (threadIdx.x == 0) {{ {part}[{self.blk}] = sh{rid}[32];"
                           + (f" {part}b[{self.blk}] = shb{rid}[32];" if arg else "") + " }")
            done.append((e, rid, name, op, arg, AT, xT, part))
        # one ticket counts the blocks of every level: level l's last block draws the
        # (l + 1) * blocks-per-level'th (the next level has not started drawing)
        last_ticket = f"{self.nblk} - 1" if level == 0 else f"{level + 1}u * {self.nblk} - 1"
        self.root.emit("__threadfence();")
        self.root.emit("__shared__ bool npc_last;")
        self.root.emit("__syncthreads();")
        self.root.emit(f"if (threadIdx.x == 0) npc_last = atomicAdd(ticket, 1u) == {last_ticket};")
        self.root.emit("__syncthreads();")
        self.root.emit(_FLAG_STORE)      # this block's flag, before it leaves
        self.root.emit("if (!npc_last) return;")
        self.root.emit("__threadfence();")
        results = []
        for e, rid, name, op, arg, AT, xT, part in done:
            acc = f"acc{rid}"
            xdt = e.inputs[0].dtype
            if arg:
                self.root.emit(f"{acc} = {EMPTY};")
            else:
                self.root.emit(f"{acc} = {self._identity(op, AT, xdt)};")
            # partials in block order, volatile: other blocks wrote them
            self.root.emit(f"for (unsigned int p = threadIdx.x; p < {self.nblk}; p += blockDim.x) {{")
            if arg:
                self.root.emit(f"  const i64 oa = ((volatile i64*){part})[p]; "
                               f"const {xT} ob = ((volatile {xT}*){part}b)[p];")
                self.root.emit("  " + self._merge(op, rid, acc, "oa", "ob", xdt))
            else:
                self.root.emit(f"  const {AT} oa = ((volatile {AT}*){part})[p];")
                self.root.emit("  " + self._merge(op, rid, acc, "oa", None, xdt))
            self.root.emit("}")
            saved = self.cur
            self.cur = self.root
            self._combine_lanes(op, rid, acc, AT, xT, xdt, False, rid + "f")
            self.cur = saved
            result = self._narrow(name, AT, ctype(e.dtype), arg, self.root)
            self.grid_reduces[id(e)] = result
            results.append((e, result))
        if last:
            self.root.emit("if (threadIdx.x == 0) *ticket = 0u;  // ready for the next launch")
        return results

    # ----- the kernel ------------------------------------------------------------------------
    def build(self):
        self._build()
        # npc_bad (checked casts, integer powers): a flag word the program reads back
        # after the run, and reruns the graph in NumPy where a kernel set it
        flagged = ("flag",) in self.k.need
        lines = self.root.lines
        lines[:] = [("if (npc_bad) *npc_flag = 1;" if flagged else None) if ln == _FLAG_STORE
                    else ln for ln in lines]
        lines[:] = [ln for ln in lines if ln is not None]
        if flagged:
            lines.insert(0, "bool npc_bad = false;")
            lines.append("if (npc_bad) *npc_flag = 1;")

    def _build(self):
        k, info, IT = self.k, self.info, self.IT
        shape = k.shape
        n = self._n_out()
        if k.symbolic and (info.scheme != "thread" or info.unroll != 1 or info.vector):
            raise Unsupported("a kernel with run-time sizes takes the plain thread scheme")
        if info.scheme == "grid":
            self._grid(tuple("0" for _ in shape))
            return
        if info.scheme == "thread":
            start, step = "(blockIdx.x * blockDim.x + threadIdx.x)", "(gridDim.x * blockDim.x)"
            if not top_reduces(k.roots) and not k.symbolic:
                if self._tiled_elements():
                    return
        elif info.scheme == "warp":
            start = "(blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5))"
            step = "(gridDim.x * (blockDim.x >> 5))"
        else:
            start, step = "blockIdx.x", "gridDim.x"
        names = [f"i{d}" for d in range(len(shape))]
        self.group_scope = self.open_loop(
            f"for ({IT} lin = {start}; lin < {n}; lin += {step})", names + ["lin"])
        for line in self._decompose("lin", names):
            self.cur.emit(line)
        self._write_outputs(tuple(names), "lin", lane0=info.scheme != "thread")
        self.close_loop()

    def _n_out(self):
        """The number of output elements as the text uses it: the schedule's count, or in
        a symbolic kernel the product of its run-time sizes."""
        if not self.k.symbolic:
            return self.info.n_out
        n = 1
        for d, m in enumerate(self.k.shape):
            n = _times(n, self.extent(("it", d), m))
        return f"({n})" if type(n) is str else n

    def _decompose(self, lin, names):
        """The element index of each dimension, from the linear output index."""
        shape, IT = self.k.shape, self.IT
        stride, lines = 1, []
        for d in range(len(shape) - 1, -1, -1):
            expr = lin if stride == 1 else f"{lin} / ({stride})"
            size = self.extent(("it", d), shape[d])
            if d > 0:
                expr = f"({expr}) % {size}"
            lines.append(f"const {IT} {names[d]} = {expr};")
            stride = _times(stride, size)
        return lines[::-1]

    def _tiled_elements(self):
        """Pointwise kernels: `unroll` output elements per thread per trip (see _tile),
        a block's elements one contiguous run: a thread's loads at a grid's stride apart
        landed in as many DRAM pages and ran slower (mul float32 -10%)."""
        names = [f"i{d}" for d in range(len(self.k.shape))]

        def body():
            self._write_outputs(tuple(names), "el", lane0=False)
        U = self._vector_tile("lin", "(blockIdx.x * blockDim.x + threadIdx.x)", "(gridDim.x * blockDim.x)",
                             self.info.n_out, lambda at: [f"const {self.IT} el = {at};"] +
                             self._decompose("el", names), names, body, _heavy(*self.k.roots),
                             list(self.k.roots), self.k.shape, self.k.outputs)
        if U != self.info.vector:
            raise AssertionError(f"the schedule's vector width is {self.info.vector}, the kernel's {U}")
        if U:
            return True   # (the schedule's unroll is U: the launch gives each thread a vector)
        if self.info.unroll == 1:
            return False
        U = self.info.unroll
        self._tile("lin", f"(blockIdx.x * {U} * blockDim.x + threadIdx.x)", "blockDim.x", self.info.n_out, U,
                   lambda at: [f"const {self.IT} el = {at};"] + self._decompose("el", names), names, body,
                   _heavy(*self.k.roots), trip=f"gridDim.x * {U} * blockDim.x")
        return True

    def _write_outputs(self, idx, offset, lane0):
        writes = []
        for out, root in zip(self.k.outputs, self.k.roots):
            v = self.value(root, idx)
            U = (self.vstore or {}).get(out.index)
            if U:  # a vector tile's output: its elements move down registers, stored at once
                name = f"st{out.index}"
                writes.append(" ".join(f"{name}_{k} = {name}_{k + 1};" for k in range(U - 1))
                              + f" {name}_{U - 1} = ({ctype(out.dtype)}){v};")
            else:
                writes.append(f"out{out.index}[{offset}] = ({ctype(out.dtype)}){v};")
        if lane0:
            lane = "(threadIdx.x & 31)" if self.info.scheme == "warp" else "threadIdx.x"
            self.cur.emit(f"if ({lane} == 0) {{ " + " ".join(writes) + " }")
        else:
            for w in writes:
                self.cur.emit(w)


def nodes(*exprs):
    """Every expression under exprs, each once."""
    seen, stack = set(), list(exprs)
    while stack:
        x = stack.pop()
        if id(x) not in seen:
            seen.add(id(x))
            yield x
            stack.extend(x.inputs)


def _load_bytes(*exprs):
    """Bytes loaded per element of exprs: one read of each array they read."""
    return sum({id(x.op): x.dtype.itemsize for x in nodes(*exprs) if x.kind == "load"}.values())


def _sincos_operands(roots, signature):
    """Signatures of the float operands that both sin and cos are taken of."""
    ops = {}
    for x in nodes(*roots):
        if x.kind == "pw" and x.op in ("sin", "cos") and x.dtype == x.inputs[0].dtype \
                and x.dtype in (np.float32, np.float64):
            ops.setdefault(signature(x.inputs[0]), set()).add(x.op)
    return {sig for sig, found in ops.items() if len(found) == 2}


_CHEAP_MATH = {"sqrt", "fabs", "floor", "ceil", "trunc", "rint", "copysign"}


def _heavy(*exprs):
    """Whether exprs call a libm function of many instructions (sin, exp, pow...)."""
    return any(x.kind == "pw" and x.op in cpp_ops.MATH and x.op not in _CHEAP_MATH for x in nodes(*exprs))


def _unroll(nbytes):
    """Elements per lane per loop trip: TILE_BYTES' worth of loads."""
    if TILE_BYTES <= 0 or nbytes <= 0:
        return 1
    return max(1, min(MAX_UNROLL, TILE_BYTES // nbytes))


def _acc_type(e):
    """The C type a reduction accumulates in: double for float sums (as the CPU does).
    Signed max/min of 32 bits and less accumulate in 64: ptxas of CUDA 13.0 (sm_90)
    miscompiles an unrolled 32-bit max/min chain over negated values (its negation
    folded into the compare: (-a).max(axis=1) of int32 gave wrong rows on the H100,
    as did plain CUDA C with `-x`, bitwise ~x + 1 or inline PTX neg.s32)."""
    if e.op == "sum" and e.dtype.kind == "f":
        return "double"
    if e.op in ("max", "min") and e.dtype.kind == "i" and e.dtype.itemsize <= 4:
        return "i64"
    return ctype(e.dtype)


def vector_plan(exprs, outputs, shape, n, buffer_of):
    """(U, {input index: load}, {output index: output}) of _vector_tile: arrays laid out
    along the loop (C-contiguous, of its shape) accessed U elements at a time, or
    (0, {}, {}) where none qualifies. The schedule asks it too (element tiles)."""
    if not VECTOR_ACCESS:
        return 0, {}, {}
    loads = {id(x.op): x for x in nodes(*exprs) if x.kind == "load"}.values()
    sizes = [x.dtype.itemsize for x in loads] + [o.dtype.itemsize for o in outputs]
    if not sizes or max(sizes) not in (4, 8):
        return 0, {}, {}
    U = 16 // max(sizes)

    def vtype(dtype):
        return _VECTOR_TYPES.get((ctype(dtype), U))

    def linear(x):
        b = buffer_of(x)
        return b.contiguous and b.shape == tuple(shape) and vtype(x.dtype) is not None
    remapped = {id(x.op) for r in nodes(*exprs) if r.kind in ("view", "concat")
                for x in nodes(*r.inputs) if x.kind == "load"}   # read at other indexes
    vec_in = {buffer_of(x).index: x for x in loads if linear(x) and id(x.op) not in remapped}
    vec_out = {o.index: o for o in outputs if vtype(o.dtype) is not None}
    if not vec_in and not vec_out or n < U:
        return 0, {}, {}
    return U, vec_in, vec_out


def element_unroll(roots):
    """Output elements per thread per trip of a pointwise kernel (TILE_BYTES of loads)."""
    return _unroll(_load_bytes(*roots))


def grid_scratch(roots, signature):
    """(levels, scratch buffers) of the grid scheme, in the order the kernel takes them:
    per level the block partials of each group of equal full reductions (part<l>_<j>,
    with part<l>_<j>b for arg-reductions' values), the blocks' ticket after level 0's,
    and each level's published results but the last's (res<n>)."""
    levels = _grid_levels(roots, signature)
    L = len(levels)
    scratch = [("npc_start", "unsigned int", 0), ("npc_level_done", "unsigned int", 0)] \
        if L > 1 else []
    published = 0
    for level, groups in enumerate(levels):
        for j, group in enumerate(groups):
            e = group[0]
            arg = e.op in ("argmin", "argmax")
            scratch.append((f"part{level}_{j}", "i64" if arg else _acc_type(e), 1))
            if arg:
                scratch.append((f"part{level}_{j}b", ctype(e.inputs[0].dtype), 1))
        if level == 0:
            scratch.append(("ticket", "unsigned int", 0))
        if level < L - 1:
            for group in groups:
                e = group[0]
                T = "i64" if e.op in ("argmin", "argmax") else ctype(e.dtype)
                scratch.append((f"res{published}", T, 0))
                published += 1
    return L, tuple(scratch)


def _grid_levels(roots, signature):
    """The full reductions of a grid kernel by nesting depth, innermost first: level l
    holds those with a full reduction of level l - 1 inside, as groups of equal
    reductions (computed once), each group in first-use order."""
    level, out = {}, []

    def depth(e):
        # 1 + the deepest level of the full reductions under and at e; 0 without any
        got = level.get(id(e))
        if got is None:
            got = max((depth(x) for x in e.inputs), default=0)
            if e.kind == "reduce" and math.prod(e.shape) == 1:
                while len(out) <= got:
                    out.append({})
                out[got].setdefault(signature(e), []).append(e)
                got += 1
            level[id(e)] = got
        return got
    for r in roots:
        depth(r)
    return [list(groups.values()) for groups in out] or [[]]


def narrow_float_sum(e):
    """A float32 or float16 sum, added in NumPy's order where one thread adds it (a
    float64 sum is compensated instead: exact to its last bits)."""
    return cpp_sums.numpy_ordered(e) and e.dtype.kind == "f" and e.dtype.itemsize <= 4


def _device_declarations(need):
    """cpp_ops' helpers as device functions; libm itself is built into NVRTC."""
    helpers = {item for item in need if item[0] == "helper"}
    return re.sub(r"\bstatic (?!__device__)", "static __device__ ",
                  cpp_ops.declarations(helpers))


_FLAG_STORE = "/* npc flag store */"


def render_cuda_kernel(kernel, buffer_of, info, index_type="i64"):
    """Fill kernel.source with CUDA C and kernel.name with its symbol."""
    em = CudaEmitter(kernel, buffer_of, info, index_type)
    em.build()
    body = _render(em.root.lines, 1)
    params = []
    for b in kernel.outputs:
        params.append(f"{ctype(b.dtype)}* __restrict__ out{b.index}")
    for b in kernel.inputs:
        params.append(f"const {ctype(b.dtype)}* __restrict__ in{b.index}")
    for name, T, _ in info.scratch:
        params.append(f"{T}* __restrict__ {name}")
    kernel.flagged = ("flag",) in kernel.need
    if kernel.flagged:
        params.append("int* __restrict__ npc_flag")
    first = getattr(buffer_of, "nparams", 0)   # a symbolic kernel's sizes follow the strides
    n_params = max(1, first + len(kernel.extents))
    params.append("NpcP P")
    text = "\n".join([f"  const i64 S{j} = P.v[{first + j}];" for j in range(len(kernel.extents))]
                     + body)
    # P[] as the C++ renderers write it (loads' run-time strides, cpp_sums' stride checks)
    # is the struct's v[] here: P is passed by value
    text = re.sub(r"(?<![\w.])P\[", "P.v[", text)
    decl = _device_declarations(kernel.need)
    digest = hashlib.sha1((decl + text + info.scheme + str(info.block)).encode()).hexdigest()[:12]
    kernel.name = f"npc_cu_{digest}"
    ops = "\n".join(f"// {label} (line {ln}): {t}" for label, ln, t in kernel.ops)
    # a symbolic kernel's text, head included, must not name this instance's sizes: NVRTC
    # compiles it once (compile_source caches by source) and it serves them all
    space = (f"{len(kernel.shape)} dimension(s), sizes S0..S{len(kernel.extents) - 1} given at "
             f"run time" if kernel.extents else f"{kernel.shape}")
    kernel.source = (
        f"// npcompile CUDA kernel {kernel.name}: {len(kernel.outputs)} output(s), iteration "
        f"space {space}, {info.scheme} scheme, {info.block} threads per block\n{ops}\n"
        f"{PRELUDE}{cuda_packed.PRELUDE if em.packed else ''}struct NpcP {{ i64 v[{n_params}]; }};\n{decl}\n"
        f'extern "C" __global__ void __launch_bounds__({info.block}) {kernel.name}(\n  '
        + ",\n  ".join(params) + ") {\n  (void)P;\n" + text + "\n}\n")
    return kernel


__all__ = ["render_cuda_kernel", "CudaKernelInfo", "Unsupported", "vector_plan",
           "element_unroll", "grid_scratch"]
