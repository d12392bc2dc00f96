"""float16 computed as NumPy computes it (issue 15): each operation in float32, rounded to
float16 after it (fusion/half.py); casts to float16 through float32, from float64 direct
(codegen/cpp_half.py). Compiled into kernels, checked against eager NumPy: conversions
bit for bit over every float16 and over float32/float64 bit patterns with ties and
subnormals, arithmetic, promotion with other dtypes and Python numbers, writes in
place, reductions (NumPy steps inside the graph), a loop, and CUDA C through NVRTC."""
import os
import warnings

import numpy as np
import pytest

import npcompile
from conftest import DEVICE, check, host_value, make
from test_trace_loops import COMPILED, compiled_without_fallback

F2 = np.float16
ALL_HALVES = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(F2)


def _run(fn, *args):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        got = npcompile.jit(fn, device=DEVICE)(*args)
        exp = fn(*args)
    return host_value(got), exp


def _bits_equal(got, exp):
    """Equal bit for bit, NaNs equal as NaNs (their payloads are not NumPy's contract)."""
    assert got.dtype == exp.dtype and got.shape == exp.shape
    nan = np.isnan(exp)
    assert (np.isnan(got) == nan).all()
    width = {2: np.uint16, 4: np.uint32, 8: np.uint64}[exp.dtype.itemsize]
    bad = np.flatnonzero(got[~nan].view(width) != exp[~nan].view(width))
    assert bad.size == 0, (exp[~nan][bad[:5]], got[~nan][bad[:5]])


def _float_patterns(width, seed=0):
    """Random bit patterns of a float type, and the values next to float16's edges:
    ties between neighbours (normal and subnormal), 65504, 65520 and the overflow,
    2**-24 and 2**-25, signed zeros, infinities, NaNs."""
    rng = np.random.default_rng(seed)
    ft = np.float32 if width == 4 else np.float64
    ut = np.uint32 if width == 4 else np.uint64
    bits = rng.integers(0, np.iinfo(ut).max, 20000, dtype=ut, endpoint=True).view(ft)
    h = ALL_HALVES[np.isfinite(ALL_HALVES)].astype(ft)
    up = np.nextafter(h, ft(np.inf))
    ties = (h[:-1] + (np.diff(h) / 2))          # halfway between neighbouring halves
    edges = np.array([65504, 65519.99, 65520, 65536, 1e6, 2 ** -24, 2 ** -25, 2 ** -26,
                      1.5 * 2 ** -25, 0.0, -0.0, np.inf, -np.inf, np.nan], ft)
    return np.concatenate([bits, h, up, ties, -ties, edges])


@pytest.fixture(params=["hardware", "software"])
def conversions(request, monkeypatch):
    """Both C++ forms of the conversions: the CPU's F16C instructions and the integer
    code CUDA runs (and a CPU without F16C)."""
    from npcompile.codegen import cpp_half
    monkeypatch.setattr(cpp_half, "SOFTWARE", request.param == "software")
    return request.param


def widen(h):
    return h.astype(np.float32), h.astype(np.float64)


def narrow(x):
    return x.astype(F2)


def test_every_float16_widens_as_numpys(conversions):
    got, exp = _run(widen, ALL_HALVES)
    for g, e in zip(got, exp):
        _bits_equal(g, e)
    compiled_without_fallback()


@pytest.mark.parametrize("width", [4, 8])
def test_floats_round_to_float16_as_numpys(width, conversions):
    got, exp = _run(narrow, _float_patterns(width))
    _bits_equal(got, exp)
    compiled_without_fallback()


@pytest.mark.parametrize("dtype", [np.int64, np.int8, np.uint8, np.uint16, np.bool_])
def test_integers_and_booleans_round_to_float16(dtype, conversions):
    if dtype is np.bool_:
        x = np.array([True, False, True])
    else:
        info = np.iinfo(dtype)
        x = np.unique(np.clip(np.array([0, 1, -1, 2047, 2049, 4097, 65504, 65519, 65520,
                                        70000, -70000, info.min, info.max]), info.min,
                              info.max)).astype(dtype)
    got, exp = _run(narrow, x)
    _bits_equal(got, exp)
    compiled_without_fallback()


def arithmetic(a, b):
    return (a + b, a - b, a * b, a / b, np.maximum(a, b), np.minimum(a, b), -a,
            np.abs(a), np.sqrt(np.abs(a)), np.floor(a), a * a, a < b, a == b)


def test_arithmetic_rounds_after_each_operation(conversions):
    """Correctly rounded float32 operations rounded to float16 are NumPy's float16 loops,
    bit for bit (a chain rounds between its operations: no float32 carries on)."""
    rng = np.random.default_rng(3)
    a = ALL_HALVES[np.isfinite(ALL_HALVES)]
    b = rng.permutation(a)
    got, exp = _run(arithmetic, a, b)
    for g, e in zip(got, exp):
        if e.dtype == F2:
            _bits_equal(g, e)
        else:
            assert (g == e).all()
    compiled_without_fallback()

    got, exp = _run(lambda a, b: (a * b + a) * b - 1, a, b)
    _bits_equal(got, exp)


def functions(a):
    return np.cos(a), np.exp(a), np.log(np.abs(a) + 1), np.tanh(a), a ** 2.5, \
        np.floor_divide(a, 3), np.remainder(a, 3)


def test_functions_of_float16():
    a = make((1000,), F2, 4)
    check(functions, a)
    compiled_without_fallback()


def genes(pop, w):
    """The genetic-algorithm fitness of issue 18: np.cos of int8 genes is float16."""
    c = np.cos(pop)
    return c * 2 + pop, c.astype(np.float32) * w + 1, np.sin(pop).sum(axis=1)


def test_float16_results_of_integers_compile():
    pop = make((40, 30), np.int8, 2, low=-128, high=127)
    check(genes, pop, make((30,), np.float32, 5))
    compiled_without_fallback()
    assert npcompile.report()["graph_breaks"] == []


def mixed(h, x, y, i):
    return h + x, h * y, h + 1.5, h * 3, h + i, np.where(h > 0, h, 0), (h > x).sum()


def test_promotion_with_other_dtypes_and_python_numbers():
    h = make((50,), F2, 6)
    check(mixed, h, make((50,), np.float32, 7), make((50,), np.float64, 8),
          make((50,), np.int8, 9))
    compiled_without_fallback()


def in_place(h, x):
    h += 1
    h[1:] = h[:-1] * x[1:]
    h[::2] -= np.float16(0.25)
    x *= h
    return h.mean(), h.sum(), np.cumsum(h), h.max()


def test_writes_in_place_and_reductions():
    """The caller's float16 arrays written as NumPy writes them; sums, means and scans of
    float16 are NumPy's own steps inside the graph (its float32 partials rounded at its
    chunk edges), with no break."""
    check(in_place, make((300,), F2, 10), make((300,), np.float32, 11))
    compiled_without_fallback()
    assert npcompile.report()["graph_breaks"] == []


def relax(h, steps):
    for _ in range(steps):
        h = h * np.float16(0.5) + 1
    return h


def test_a_float16_loop_compiles_once():
    for steps in (3, 6):
        check(relax, make((64,), F2, 12), steps)
    compiled_without_fallback()


def test_float16_edge_values():
    h = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 65504, -65504, 6e-8, 1e-5], F2)
    check(lambda a: (a * 2, a + a, a / 0, np.isnan(a), np.isinf(a * 1000), a.astype(np.int64)
                     if np.isfinite(a).all() else a - a), h)
    check(lambda a: np.zeros(3, F2) + a[:3], h)
    check(lambda a: a.astype(np.int32), np.array([1.5, -2.5, 300.0], F2))
    check(lambda a: a[::-1] * 2, make((0,), F2))


@pytest.mark.skipif(DEVICE == "cuda" or os.environ.get("NPC_BACKEND") == "reference",
                    reason="the GPU runs it in the differential tests; reference compiles nothing")
def test_float16_kernels_compile_to_ptx():
    from npcompile.backends import cuda_runtime
    ok, why = cuda_runtime.compiler_available()
    if not ok:
        pytest.skip(f"NVRTC unavailable: {why}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        low = npcompile.jit(genes, device="cuda").lower(
            make((40, 30), np.int8, 2), make((30,), np.float32, 5))
    kernels = [k for k in low.kernels if k.target == "cuda"]
    assert kernels
    assert any("npc_f2h" in k.source for k in kernels)
    for k in kernels:
        assert f".visible .entry {k.name}(" in k.ptx


def test_the_kernel_holds_float16_only_in_memory():
    """What the kernel computes on is float32 (npc_h2f) and what it stores is rounded
    (npc_f2h): no float16 arithmetic reaches the C++."""
    if not COMPILED or DEVICE == "cuda":
        pytest.skip("the C++ of the CPU backend")
    npcompile.reset()
    npcompile.jit(lambda a, b: np.cos(a) * 2 + b)(make((8,), np.int8), make((8,), F2))
    src = npcompile.report()["kernel_sources"][-1]["source"]
    body = src[src.index("npc_d2h(double d)"):]
    assert "npc_f16* __restrict__ out0" in body and "npc_h2f(" in body and "npc_f2h(" in body


def power_then_write(a, h):
    t = a ** (a.T - 5)
    h[h > 0] = 2
    return t


def test_an_error_before_a_float16_write_leaves_the_array():
    """NumPy raises at the negative integer power before the float16 write (fuzzer seed
    5915740, where float16 was untraced and written early); traced now, the write lands
    only after a run succeeds."""
    check(power_then_write, np.array([3, 7, 9]), np.array([1.5, -3.0, 86.06], F2))
    npcompile.reset()      # the kernel flagged the power, and the graph ran in NumPy
    check(power_then_write, np.array([6, 7, 9]), np.array([1.5, -3.0, 86.06], F2))
    compiled_without_fallback()
