"""The CUDA backend without a GPU: every seed workload's kernels render to CUDA C and
compile to PTX with NVRTC (what CI can check), device="cuda" falls back to the CPU with
a recorded reason and NumPy's results, and failures never crash."""
import os
import sys
import warnings

import numpy as np
import pytest

import npcompile
from npcompile.backends import cpu_symbolic, cuda_runtime

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.environ.get("NPC_BENCH_DIR") or os.path.join(HERE, "..", "..", "..", "shared", "bench"))
from workloads import WORKLOADS, make_inputs  # noqa: E402

NVRTC, NVRTC_WHY = cuda_runtime.compiler_available()
GPU, GPU_WHY = cuda_runtime.available()
pytestmark = [pytest.mark.skipif(not NVRTC, reason=f"NVRTC unavailable: {NVRTC_WHY}"),
              pytest.mark.skipif(os.environ.get("NPC_BACKEND") == "reference",
                                 reason="NPC_BACKEND=reference compiles nothing")]



@pytest.fixture(autouse=True)
def first_sight():
    """Each test renders its kernels as seen for the first time: a structure an earlier
    test compiled at another size would be symbolic (backends/cpu_symbolic.py), in the
    plain thread scheme, without the tiles and schemes these tests look for."""
    cpu_symbolic._SEEN.clear()


SEEDS = [(name, dt) for name in WORKLOADS
         for dt in (["int8"] if name == "ga_fitness_sum" else ["float32", "float64"])]


def lowered(name, dt, scale=0.002):
    args = make_inputs(name, np.dtype(dt), scale=scale)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        low = npcompile.jit(WORKLOADS[name], device="cuda").lower(*args)
    return [k for k in low.kernels if k.target == "cuda"], args


@pytest.mark.parametrize("name,dt", SEEDS)
def test_seed_kernels_compile_to_ptx(name, dt):
    kernels, _ = lowered(name, dt)
    assert kernels, "no CUDA kernel for a seed workload"
    for k in kernels:
        assert f".visible .entry {k.name}(" in k.ptx
        assert k.source.startswith("// npcompile CUDA kernel")
        assert "__global__" in k.source and k.name in k.source
        assert ".target sm_90" in k.ptx  # the H200's architecture without a GPU here


def _scheme(k):
    return k.source.split(" scheme,")[0].rsplit(", ", 1)[1]


def test_kmeans_is_one_kernel_one_thread_per_point():
    kernels, _ = lowered("kmeans", "float32")
    assert len(kernels) == 1 and _scheme(kernels[0]) == "thread"
    # X read once through index arithmetic: its only loads are in[i0*2 + ...]
    assert "out0[lin] = (i64)" in kernels[0].source


def test_row_sum_is_split_across_a_warp_and_full_mean_across_the_grid():
    (k,), _ = lowered("ga_fitness_sum", "int8")
    assert _scheme(k) == "warp" and "npc_down(" in k.source
    (k,), _ = lowered("mc_pi", "float64", scale=0.01)
    assert _scheme(k) == "grid" and "atomicAdd(ticket" in k.source


def test_int8_row_sum_reads_16_byte_words_summed_by_dp4a():
    (k,), _ = lowered("ga_fitness_sum", "int8")
    # the head and tail around the 16-byte-aligned words: rows of 1000 bytes start at 0 or 8 mod 16
    assert "const uint4* w" in k.source and "npc_sum16_i8(q" in k.source and "hd" in k.source
    assert "__dp4a" in k.ptx or "dp4a" in k.ptx


def lowered_fn(fn, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        low = npcompile.jit(fn, device="cuda").lower(*args)
    return [k for k in low.kernels if k.target == "cuda"]


@pytest.mark.parametrize("dtype", [np.uint8, np.bool_, np.int16, np.uint16])
def test_packed_sums_of_other_narrow_integers(dtype):
    (k,) = lowered_fn(lambda v: v.sum(axis=1), np.zeros((64, 1000), dtype))
    name = {np.uint8: "u8", np.bool_: "b", np.int16: "i16", np.uint16: "u16"}[dtype]
    assert f"npc_sum16_{name}(q" in k.source
    # a cast that changes values (int8 -> uint8 wraps) is not read as packed bytes
    (k,) = lowered_fn(lambda v: v.astype(np.uint8).sum(axis=1), np.zeros((64, 1000), np.int8))
    assert "npc_sum16" not in k.source


@pytest.fixture
def scalar_tiles(monkeypatch):
    from npcompile.codegen import cuda as cg
    monkeypatch.setattr(cg, "VECTOR_ACCESS", False)


def test_pointwise_kernels_load_a_tile_before_the_math(scalar_tiles):
    (k,), _ = lowered("sincos", "float32", scale=0.05)
    src = k.source
    # sin and cos of one value: one sincosf; the math once, in a loop not unrolled
    assert "sincosf(ld" in src and "sinf(" not in src and "#pragma unroll 1" in src
    assert src.index("ld1_1 = in1[") < src.index("sincosf(")
    (k,), _ = lowered("mul", "float32", scale=0.05)  # float64 is 16 bytes: one per trip
    assert "#pragma unroll\n" in k.source and "ld1_1 = in1[" in k.source


def test_grid_reduction_tiles_keep_each_lanes_order(scalar_tiles):
    (k,), _ = lowered("mc_pi", "float32", scale=0.05)
    src = k.source
    assert "ld2_1 = in1[" in src and "npc_down(" in src
    # the terms of one trip are added in index order: the loop over u is the lane's order
    assert "for (int ut" in src and "ut1 * (gridDim.x * blockDim.x)" in src


def test_contiguous_arrays_move_as_vectors_when_aligned():
    (k,), _ = lowered("sincos", "float32", scale=0.05)
    src = k.source
    assert "((const float4*)in1)[lin]" in src and "((float4*)out0)[lin] = make_float4(" in src
    assert "ld.global.v4.f32" in k.ptx or "ld.global.nc.v4.f32" in k.ptx
    assert "st.global.v4.f32" in k.ptx
    # whole vectors only where every such address is aligned; one scalar loop for the rest
    assert "& 15) == 0" in src and "(npc_veclin ? " in src
    (k,), _ = lowered("mul", "float64", scale=0.05)
    assert "((const double2*)in1)" in k.source and "make_double2(" in k.source
    (k,), _ = lowered("mc_pi", "float32", scale=0.05)
    assert k.source.count("((const float4*)in") == 2 and "4 * t1 + ut1" in k.source


def test_broadcast_and_strided_operands_are_read_element_by_element():
    (k,) = lowered_fn(lambda a, b: a * b[None, :], np.ones((64, 32), np.float32),
                      np.ones(32, np.float32))
    src = k.source
    assert "((const float4*)in" in src                 # a, laid out along the loop
    assert src.count("((const float4*)in") == 1         # b is broadcast: element loads
    (k,) = lowered_fn(lambda s: s[:, 0] * 2, np.ones((100, 3), np.float32))
    assert "((const float4*)in" not in k.source and "make_float4(" in k.source


def test_argmin_and_argmax_keep_scalar_lanes():
    (k,) = lowered_fn(lambda v: np.argmax(v), np.ones(1 << 20, np.float32))
    assert "float4" not in k.source


def test_normalize_outer_never_materializes_the_product():
    kernels, args = lowered("normalize_outer", "float32", scale=1.0)
    n = args[0].shape[0]
    m = args[0].shape[1]
    for k in kernels:
        assert f"({n}, {m}, {m})" not in k.source.splitlines()[0]
    assert any(_scheme(k) == "block" for k in kernels)


def test_source_names_the_numpy_lines():
    kernels, _ = lowered("sincos", "float64")
    assert "return np.sin(x) + np.cos(x)" in kernels[0].source


@pytest.mark.skipif(GPU, reason="checks the behaviour without a GPU")
def test_without_gpu_results_come_from_the_cpu_with_a_reason():
    x = np.linspace(-3, 3, 1000)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        got = npcompile.jit(lambda v: np.sin(v) * 2 + 1, device="cuda")(x)
    assert type(got) is np.ndarray
    np.testing.assert_allclose(got, np.sin(x) * 2 + 1, rtol=1e-13)
    reasons = [f["reason"] for f in npcompile.report()["fallbacks"]]
    assert any(r.startswith("CUDA unavailable, running on the CPU") for r in reasons), reasons


def test_nvrtc_rejection_is_an_error_with_the_log():
    cu = cuda_runtime.native()
    with pytest.raises(cu.NvrtcError) as info:
        cu.compile_ptx('extern "C" __global__ void k() { undefined_name; }', "k")
    assert "undefined_name" in info.value.log


def test_failed_cuda_compile_falls_back_with_numpy_results(monkeypatch):
    from npcompile.backends import cuda

    def broken(source, name):
        raise RuntimeError("forced NVRTC failure")
    monkeypatch.setattr(cuda, "compile_source", broken)
    x = np.arange(10.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = npcompile.jit(lambda v: v * 3 - 1, device="cuda")(x)
    np.testing.assert_array_equal(np.asarray(got), x * 3 - 1)
    assert any("CUDA compile failed" in f["reason"] for f in npcompile.report()["fallbacks"])


def test_unavailable_is_a_clear_message():
    if GPU:
        pytest.skip("a GPU is present")
    with pytest.raises(RuntimeError, match="driver|GPU|CUDA"):
        npcompile.to_device(np.ones(3))


def test_row_reductions_are_not_read_as_vectors_of_the_whole_array():
    # the lane loop of a row walks one row: its loads add the row's offset
    (k,) = lowered_fn(lambda v: (v * v).sum(axis=1), np.ones((64, 4096), np.float32))
    assert "float4" not in k.source
    (k,) = lowered_fn(lambda v: (v * v).sum(), np.ones(1 << 20, np.float32))
    assert "((const float4*)in1)" in k.source


def _checked(x):
    bins = 7
    idx = np.clip(((x + 30) / 60 * bins).astype(np.int64), 0, bins - 1)
    return idx * 2, x.astype(np.int32) ** 2, x.sum().astype(np.int16)


def test_checked_casts_and_integer_powers_compile_with_the_flag_word():
    """Kernels whose values NumPy may have to handle (an out-of-range float -> int cast,
    a negative integer power) set a device flag word, passed last, that the program
    reads after the run (it failed to compile before: npc_bad was undeclared)."""
    x = np.linspace(-40, 40, 2_000_000)     # the sum as a grid reduction
    low = npcompile.jit(_checked, device="cuda").lower(x)
    kernels = [k for k in low.kernels if k.target == "cuda"]
    flagged = [k for k in kernels if "npc_flag" in k.source]
    assert flagged and all(f".visible .entry {k.name}(" in k.ptx for k in kernels)
    for k in flagged:
        assert "bool npc_bad = false;" in k.source and "*npc_flag = 1;" in k.source
        # after the buffers, before the parameters: the order the backend passes them
        assert k.source.index("int* __restrict__ npc_flag") < k.source.index("NpcP P)")
    # a grid reduction's other blocks leave early: each stores its flag first
    grid = [k for k in flagged if "if (!npc_last) return;" in k.source]
    assert grid
    for k in grid:
        assert k.source.count("*npc_flag = 1;") == 2


def _lattice(g, y, x):
    return g[y, x] * 0.5 + g[(y + 1) % 33, x].sum(axis=-1, keepdims=True)


@pytest.mark.parametrize("size", [50, 1500])
def test_gathers_compile_inside_kernels_with_the_flag_word(size):
    """Integer-array reads (fusion/expr.py Lowering._gather) inside CUDA kernels, in a
    pointwise and a row-reduction scheme: each index checked against the array's size
    (npc_bad), none left to a NumPy step."""
    rng = np.random.default_rng(3)
    g = rng.random((33, 33))
    y, x = rng.integers(-33, 33, (size, 40)), rng.integers(0, 33, (size, 40))
    low = npcompile.jit(_lattice, device="cuda").lower(g, y, x)
    kernels = [k for k in low.kernels if k.target == "cuda"]
    assert kernels and all(f".visible .entry {k.name}(" in k.ptx for k in kernels)
    assert sum(k.source.count("npc_bad |= !ok") for k in kernels) >= 3
    assert all("*npc_flag = 1;" in k.source for k in kernels if "npc_bad |=" in k.source)
    assert not any(k.target == "numpy" for k in low.kernels)


def test_views_read_their_strides_at_run_time():
    """A view's strides as NumPy takes it of the example are not constants of the CUDA
    code (backends/kernel_inputs.py fixed_strides): a DeviceArray's diagonal or reversed
    slice can come out contiguous, and every run then failed the layout check. The same
    for a strided argument: a loop body's leaf D = np.diag(A) was one."""
    A = np.random.default_rng(1).random((300, 300))
    (k,) = lowered_fn(lambda A: np.diag(A) * 2 + A[::-1, 0], A)
    assert "P.v[" in k.source and "*301]" not in k.source and "*-300]" not in k.source, k.source
    (k,) = lowered_fn(lambda d: d * 2 + 1, A[:, 3])
    assert "P.v[" in k.source and "*300]" not in k.source, k.source


def _lu(A):
    A = A.copy()
    n = A.shape[0]
    for k in range(n - 1):
        A[k + 1:, k] = A[k + 1:, k] / A[k, k]
        # np.fmod of a slice: no scalar loop nest (those run on the host), a graph
        A[k + 1:, k + 1:] -= np.outer(A[k + 1:, k], np.exp(np.fmod(A[k, k + 1:], 0.7) * 1e-3))
    return A


@pytest.mark.parametrize("fn,args,most", [
    # the trailing update moves with k: its slices' sizes and offsets at every k (while
    # the block is at least half the matrix it is pasted into the whole, fusion/paste.py:
    # a second family of kernels, as many at n = 80 as at 40)
    (_lu, (np.random.default_rng(0).standard_normal((40, 40)) + 40 * np.eye(40),), 14)])
def test_a_loop_over_k_compiles_each_kernel_once_with_run_time_sizes(fn, args, most):
    """One unrolled graph holding the same kernel at every k: NVRTC compiles one text that
    reads its sizes, offsets and fixed indices from P at run time (LU of 200 was 199
    compiles, and ran out of its time on the GPU)."""
    kernels = lowered_fn(fn, *args)
    names = {k.name for k in kernels}
    assert len(kernels) >= 20 and len(names) <= most, (len(kernels), len(names))
    symbolic = [k for k in kernels if "given at run time" in k.source]
    assert len(symbolic) >= len(kernels) - most
    for k in symbolic:
        assert f".visible .entry {k.name}(" in k.ptx
        assert "const i64 S0 = P.v[" in k.source


def test_large_kernels_keep_their_sizes_in_the_text():
    """Past SYMBOLIC_MAX_ELEMENTS a kernel is compiled per size (its vector tiles follow
    the sizes), even where its structure has been seen at another size."""
    from npcompile.backends import cuda_schedule
    big = cuda_schedule.SYMBOLIC_MAX_ELEMENTS
    lowered_fn(lambda v: np.sin(v) * 2, np.zeros(16, np.float32))
    (k,) = lowered_fn(lambda v: np.sin(v) * 2, np.zeros(big + 4, np.float32))
    assert "given at run time" not in k.source and str(big + 4) in k.source


def test_short_float32_sums_add_in_numpys_order_one_thread_each():
    """A float32 sum of at most 128 terms runs one thread per output, in NumPy's
    pairwise order and float32 (its bits: a 9-tap kernel normalized by its sum fed an
    image cast to uint8, off by one where the sum was added in double)."""
    (k,) = lowered_fn(lambda v: v.sum(axis=1), np.ones((1000, 100), np.float32))
    assert _scheme(k) == "thread" and "npc_pairwise_float<" in k.source
    assert f".visible .entry {k.name}(" in k.ptx
    # longer ones are split across lanes, added in double (another structure: one seen
    # at two sizes would be symbolic, in the thread scheme)
    (k,) = lowered_fn(lambda v: v.sum(axis=1) * 2, np.ones((64, 1000), np.float32))
    assert _scheme(k) != "thread" and "double acc" in k.source
