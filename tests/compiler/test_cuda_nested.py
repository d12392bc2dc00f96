"""Full reductions nested in a full reduction on the GPU (np.std, np.var): one grid-scheme
kernel whose levels run one after another in the same launch (codegen/cuda.py _grid),
never the one-block fallback. Without a GPU: the kernels render and compile to PTX; on
the GPU machine: NumPy's value, dtype and shape, deterministic over repeated calls."""
import math
import os
import warnings

import numpy as np
import pytest

import npcompile
from npcompile.backends import cuda_runtime

NVRTC, NVRTC_WHY = cuda_runtime.compiler_available()
GPU, GPU_WHY = cuda_runtime.available()
pytestmark = [pytest.mark.skipif(not NVRTC, reason=f"NVRTC unavailable: {NVRTC_WHY}"),
              pytest.mark.skipif(os.environ.get("NPC_BACKEND") == "reference",
                                 reason="NPC_BACKEND=reference compiles nothing")]
needs_gpu = pytest.mark.skipif(not GPU, reason=f"no GPU: {GPU_WHY}")


def lowered(fn, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        low = npcompile.jit(fn, device="cuda").lower(*args)
    return [k for k in low.kernels if k.target == "cuda"]


def _scheme(k):
    return k.source.split(" scheme,")[0].rsplit(", ", 1)[1]


def _data(n, dtype, seed=0):
    return (np.random.default_rng(seed).standard_normal(n) * 2 + 3).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("fn", [np.std, np.var])
def test_std_and_var_are_one_grid_kernel_of_two_levels(fn, dtype):
    (k,) = lowered(lambda v: fn(v), _data(1 << 20, dtype))
    assert _scheme(k) == "grid"
    src = k.source
    # the mean is level 0, the squares level 1, which waits for it
    assert "if (npc_level == 0u)" in src and "if (npc_level == 1u)" in src
    assert "npc_level_done" in src and f".visible .entry {k.name}(" in k.ptx
    # the second pass walks backwards (L2 still holds the end), in tiles as the first
    assert "1048575 - (t" in src and src.count("#pragma unroll\n") >= 2


def test_grid_is_split_between_the_levels():
    from npcompile.backends.cuda_schedule import launch_shape
    from npcompile.codegen.cuda import CudaKernelInfo
    assert launch_shape(CudaKernelInfo("grid", 512, 1), 132) == (4 * 132, 512)
    assert launch_shape(CudaKernelInfo("grid", 512, 1, levels=2), 132) == (2 * 4 * 132, 512)


def test_equal_reductions_are_one_level_entry():
    # mean, std and var of one array: one sum per level (the mean's is shared by all
    # three, the squares' by std and var), published once
    (k,) = lowered(lambda v: (v.mean(), v.std(), v.var()), _data(1 << 20, np.float64))
    assert _scheme(k) == "grid"
    assert k.source.count("double* __restrict__ part") == 2
    assert k.source.count("* __restrict__ res") == 1


def test_two_dimensional_std_reads_a_flat_index():
    (k,) = lowered(lambda v: np.std(v), _data(1000 * 2000, np.float32).reshape(1000, 2000))
    assert _scheme(k) == "grid"
    # one index over both axes: consecutive lanes read consecutive elements
    assert "const int r1_0 = f1 / 2000; const int r1_1 = (f1) % 2000;" in k.source


@pytest.mark.parametrize("shape,scheme", [((64, 30, 40), "warp"), ((16, 100, 90), "block")])
def test_multi_axis_row_reductions_read_a_flat_index(shape, scheme):
    # the same flat walk serves a warp's or a block's lanes (one lane per row of the
    # first reduced axis read strided, and left lanes idle where it was short)
    (k,) = lowered(lambda v: v.sum(axis=(1, 2)), _data(math.prod(shape), np.float32).reshape(shape))
    assert _scheme(k) == scheme
    assert f"const int r1_1 = f1 / {shape[2]}; const int r1_2 = (f1) % {shape[2]};" in k.source


def _four_levels(n, dtype):
    """var(x - var(x)): full reductions nested four deep (mean, squares, mean, squares),
    built as kernel IR (the fusion plan writes a broadcast reduction to memory, so NumPy
    code nests two at most: the mean inside np.var)."""
    from npcompile.fusion.expr import Expr

    class Node:
        def __init__(self, value):
            self.value, self.shape, self.dtype = value, value.shape, value.dtype
    x = _data(n, dtype)
    node = Node(x)
    dt = np.dtype(dtype)
    ld = Expr("load", node, [], x.shape, dt)
    cnt = Expr("const", float(n), [], (), dt)

    def mean(e):
        s = Expr("reduce", "sum", [e], (1,), dt, {"axes": (0,), "keepdims": True})
        return Expr("pw", "true_divide", [s, cnt], (1,), dt)

    def var(e):
        d = Expr("pw", "subtract", [e, mean(e)], e.shape, dt)
        return mean(Expr("pw", "multiply", [d, d], e.shape, dt))
    inner = Expr("pw", "subtract", [ld, var(ld)], x.shape, dt)
    root = var(inner)
    m = x.mean(dtype=dt)
    v1 = np.square(x - m).mean(dtype=dt)
    y = x - v1
    expected = np.square(y - y.mean(dtype=dt)).mean(dtype=dt)
    return root, node, expected


def _render_ir(root, node):
    from npcompile.backends.cuda_schedule import index_type, launch_info, schedule
    from npcompile.backends.kernel_inputs import KernelInputs
    from npcompile.codegen.kernel_ir import Buffer, Kernel
    from npcompile.codegen.cuda import render_cuda_kernel
    k = Kernel(None, [root], [Buffer(0, root.dtype, root.shape, True)], root.shape)
    scheme, block = schedule(k)
    example_of = lambda n: (n.value, False)  # noqa: E731
    buffer_of = KernelInputs(k, example_of)
    info = launch_info(k, scheme, block, buffer_of)
    render_cuda_kernel(k, buffer_of, info, index_type(k, example_of))
    return k, info


def test_arg_reductions_are_not_walked_backwards():
    # argmax(x - mean(x)) as kernel IR: its level walks forwards, so each lane meets its
    # first extreme first (NumPy's answer on ties)
    from npcompile.fusion.expr import Expr
    root, node, _ = _four_levels(1 << 20, np.float32)
    ld = root.inputs[0]
    while ld.kind != "load":
        ld = ld.inputs[0]
    dt = ld.dtype
    s = Expr("reduce", "sum", [ld], (1,), dt, {"axes": (0,), "keepdims": True})
    d = Expr("pw", "subtract", [ld, s], ld.shape, dt)
    arg = Expr("reduce", "argmax", [d], (), np.dtype(np.int64), {"axes": (0,), "keepdims": False})
    k, info = _render_ir(arg, node)
    assert info.levels == 2 and "1048575 - (" not in k.source


def test_four_levels_compile():
    root, node, _ = _four_levels(1 << 20, np.float32)
    k, info = _render_ir(root, node)
    assert info.scheme == "grid" and info.levels == 4
    assert "if (npc_level == 3u)" in k.source and "atomicExch(npc_level_done, 3u)" in k.source
    cu = cuda_runtime.native()
    ptx = cu.compile_ptx(k.source, k.name, "compute_90", list(cuda_runtime.NVRTC_OPTIONS))["ptx"]
    assert f".visible .entry {k.name}(" in ptx


# ----- on the GPU -------------------------------------------------------------------------
def _run(fn, *args, calls=1):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        f = npcompile.jit(fn, device="cuda")
        dargs = [npcompile.to_device(a) for a in args]
        out = []
        for _ in range(calls):
            r = f(*dargs)
            out.append(tuple(np.asarray(g) for g in r) if isinstance(r, tuple) else np.asarray(r))
        return out


def _check(got, exp, dtype):
    got, exp = np.asarray(got), np.asarray(exp)
    assert got.dtype == exp.dtype and got.shape == exp.shape
    rtol = 2e-5 if np.dtype(dtype) == np.float32 else 1e-12
    np.testing.assert_allclose(got, exp, rtol=rtol, atol=rtol)


CASES = [
    ("std", lambda v: np.std(v)),
    ("var", lambda v: np.var(v)),
    ("std_ddof1", lambda v: np.std(v, ddof=1)),
    ("var_keepdims", lambda v: np.var(v, keepdims=True)),
    ("sqrt_var", lambda v: np.sqrt(v.var()) + v.mean()),
]


@needs_gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name,fn", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("n", [1_000_003, 10_000_000])
def test_nested_on_device_equals_numpy(name, fn, dtype, n):
    x = _data(n, dtype)
    exp = fn(x)
    got = _run(fn, x, calls=3)
    for g in got:
        _check(g, exp, dtype)
    # the same launch shape and combine order every call: the same bits
    assert all(np.array_equal(g, got[0]) for g in got[1:])
    assert any(k["target"] == "cuda" for k in npcompile.report()["kernels"])


@needs_gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nested_2d_and_several_outputs_on_device(dtype):
    x = _data(1000 * 2001, dtype).reshape(1000, 2001)
    fn = lambda v: (v.mean(), v.std(), v.var(), np.std(v, keepdims=True))  # noqa: E731
    exp = fn(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = npcompile.jit(fn, device="cuda")(npcompile.to_device(x))
    for g, e in zip(got, exp):
        _check(np.asarray(g), e, dtype)


@needs_gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(64, 30, 40), (16, 100, 90)])
def test_multi_axis_row_reductions_on_device(shape, dtype):
    x = _data(math.prod(shape), dtype).reshape(shape)
    fn = lambda v: (v.sum(axis=(1, 2)), v.max(axis=(1, 2)), np.std(v, axis=(1, 2)))  # noqa: E731
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = npcompile.jit(fn, device="cuda")(npcompile.to_device(x))
    for g, e in zip(got, fn(x)):
        _check(np.asarray(g), e, dtype)


@needs_gpu
def test_float32_sums_as_accurate_as_numpys_pairwise():
    # a large mean against a small spread: the squares' sum is where float32 loses;
    # ours adds in double (as the grid scheme's plain sums) and must not be worse
    x = (np.random.default_rng(1).standard_normal(10_000_000) + 100).astype(np.float32)
    ref = np.var(x.astype(np.float64))   # the float32 data, summed in float64
    got = float(_run(lambda v: np.var(v), x)[0])
    exp = float(np.var(x))
    assert abs(got - ref) <= abs(exp - ref) + 4 * np.finfo(np.float32).eps * ref


@needs_gpu
def test_many_calls_keep_the_level_counters_consistent():
    # every launch resets its tickets: a stale one would hang the next or mix levels
    x = _data(3_000_000, np.float32)
    exp = np.std(x)
    got = _run(lambda v: np.std(v), x, calls=100)
    assert all(np.array_equal(g, got[0]) for g in got)
    _check(got[0], exp, np.float32)


@needs_gpu
def test_four_levels_on_device():
    from npcompile.backends import cuda_runtime as rt
    from npcompile.backends.cuda import CudaKernel, compile_source
    from npcompile.backends.device_array import DeviceArray
    root, node, expected = _four_levels(5_000_000, np.float32)
    k, info = _render_ir(root, node)
    ptx, _, _ = compile_source(k.source, k.name)
    ck = CudaKernel(k, info, ptx, [], [])
    ck.load(rt.device_info()["multiprocessors"])
    x = npcompile.to_device(node.value)
    out = DeviceArray.empty(root.shape, root.dtype)
    for _ in range(3):
        rt.native().launch(ck.function, ck.grid, ck.block,
                           [out.pointer, x.pointer] + [b.ptr for b in ck.scratch], [], False)
        rt.native().synchronize()
        _check(out.get(), np.asarray(expected).reshape(root.shape), np.float32)
