"""Complex numbers computed inside fused CPU kernels (codegen/cpp_complex.py): arithmetic,
abs, the parts, comparisons, np.where, the C library's functions, real/complex promotion,
casts, sums and means, NumPy's special values, a Mandelbrot time loop. Every program is
checked against eager NumPy and must have run as kernels only: no NumPy step between
them (the fused graph's decisions) and no fallback. The CUDA renderer does not compute
complex numbers: there they stay NumPy steps, and the GPU kernels around them compile."""
import os
import warnings

import numpy as np
import pytest

import npcompile
from npcompile.dtypes import NUMPY2
from conftest import DEVICE, check, make
from test_trace_loops import COMPILED, compiled_without_fallback

CPLX = [np.complex64, np.complex128]


def cmake(shape, dtype, seed=0):
    """Complex values of both signs and several magnitudes."""
    part = np.float32 if np.dtype(dtype).itemsize == 8 else np.float64
    return (make(shape, part, seed) + 1j * make(shape, part, seed + 1)).astype(dtype)


def all_fused(kernels=True, allow=()):
    """The last checked program ran only kernels (and free views of its arguments; the
    labels in `allow` may be NumPy steps)."""
    if not COMPILED or DEVICE == "cuda":   # the GPU keeps complex ops as NumPy steps
        return
    compiled_without_fallback(kernels)
    rep = npcompile.report()
    assert rep["graph_breaks"] == [], rep["graph_breaks"]
    for g in rep["fusion_graphs"]:
        steps = [d for d in g["decisions"] if "runs in NumPy" in d and "a view: no copy" not in d
                 and d.split(":")[0] not in allow]
        assert steps == [], steps


ELEMENTWISE = {
    "arith": lambda a, b: (a + b) * (a - b) - a * 3 + 2,
    "divide": lambda a, b: a / b + b / (a + 1),
    "unary": lambda a, b: -a + np.conj(b) + np.conjugate(a) * +b,
    "abs": lambda a, b: np.abs(a * b) + np.absolute(a - b),
    "parts": lambda a, b: (a * b).real - np.imag(a + b) * np.real(a),
    "compare": lambda a, b: (a == b) | (a * 1 != b) ^ (a + 0 == a),
    "where": lambda a, b: np.where(np.abs(a) > np.abs(b), a * b, a - b),
    "where_mixed": lambda a, b: np.where(a.real > 0, a, 0.5),
    "square": lambda a, b: np.square(a) + a ** 2 - b * b,
    "reciprocal": lambda a, b: np.reciprocal(a) + b ** -1.0,
    "exp_log": lambda a, b: np.exp(a * 0.1) + np.log(b),
    "sqrt": lambda a, b: np.sqrt(a) - b ** 0.5,
    "trig": lambda a, b: np.sin(a * 0.1) * np.cos(b * 0.1) + np.tan(a * 0.01),
    "hyperbolic": lambda a, b: np.sinh(a * 0.05) - np.cosh(b * 0.05) + np.tanh(a),
    "classify": lambda a, b: np.isnan(a / b) | np.isinf(a * b) & np.isfinite(b),
}


@pytest.mark.parametrize("name", sorted(ELEMENTWISE))
@pytest.mark.parametrize("dtype", CPLX)
def test_elementwise(name, dtype):
    a, b = cmake((6, 7), dtype), cmake((6, 7), dtype, 5)
    check(ELEMENTWISE[name], a, b)
    all_fused()


def test_shapes_layouts_and_0d():
    """Broadcasting, strided and transposed arguments, and a 0-d result (a NumPy
    scalar of the complex type)."""
    z = cmake((8, 6), np.complex128)
    w = cmake((6,), np.complex128, 3)
    check(lambda a, b: a * b + a[::-1, ::-1] - a[:, None, 2:3].sum(axis=1), z, w)
    check(lambda a, b: a.T[1:, :5] / b[:5, None], z, w)
    all_fused()


@pytest.mark.skipif(os.environ.get("NPC_BACKEND") == "reference", reason="NumPy's own "
                    "gap: a 0-d array's complex product (the reference path's) rounds "
                    "unlike its scalars' (an FMA in one loop), 1 ulp apart")
def test_numpy_scalars_of_complex_type():
    """NumPy complex scalars in, a NumPy scalar of the complex type out."""
    z = cmake((8, 6), np.complex128)
    w = cmake((6,), np.complex128, 3)
    check(lambda a, b: (a[2, 3] * b[1]) + 1j, z, w)
    check(lambda a: np.abs(a[0, 0] * 2), z)


def test_python_and_numpy_scalars():
    """Python complex and float numbers and NumPy scalars as operands, under the
    installed NumPy's promotion (a float64 scalar times complex64: complex64 under
    1.x's value-based casting, complex128 under NumPy 2)."""
    z = cmake((5, 4), np.complex64)
    for s in (2.5, 1j, 3 - 0.5j, 7, np.float32(3), np.complex64(0.5j)):
        check(lambda a, s=s: a * s - s / (a + 1), z)
        all_fused()
    # NumPy 1.x's value-based casting of NumPy scalars (np.float64 * complex64 is
    # complex64) is not the loop the fusion asks NumPy for: NumPy steps there, as for
    # float32 arrays
    for s in (np.float64(2.0), np.complex128(1 + 2j), np.int64(-2), True):
        check(lambda a, s=s: a * s - s / (a + 1), z)
        if NUMPY2 and s is not True:
            all_fused()


@pytest.mark.parametrize("real", [np.float32, np.float64, np.int8, np.int32, np.int64,
                                  np.uint16, np.bool_])
@pytest.mark.parametrize("dtype", CPLX)
def test_real_and_complex_operands(real, dtype):
    """NumPy's promotion: float32 + complex64 is complex64, float64 + complex64 and
    int32 + complex64 are complex128."""
    x, z = make((4, 6), real), cmake((4, 6), dtype)
    check(lambda a, b: a + b * a - b / (a + 0.5), x, z)
    all_fused()
    check(lambda a, b: np.where(a > 0, b, a) * 1j, x, z)
    all_fused()


def test_a_computed_complex_scalar_among_arrays():
    """NumPy 1.x casts a 0-d complex operand by its value: a NaN mean (or one past
    complex64's range) with float32 arrays gives complex128, a finite one complex64.
    The trace reads the value where it decides the dtype (trace/operands.py)."""
    x = make((6,), np.float32)
    for z in (cmake((6,), np.complex128), np.full(6, complex(np.nan, 1)), np.full(6, 1e300 + 0j)):
        check(lambda a, b: np.where(a > 0, a, np.square(np.mean(b))), x, z)
        check(lambda a, b: a * (np.mean(b) * 2), x, z)


def test_casts():
    x, z = make((4, 5), np.float32), cmake((4, 5), np.complex128)
    check(lambda a: a.astype(np.complex64) * 2, x)
    check(lambda a: a.astype(np.complex128) + a.astype(np.complex64), x)
    check(lambda b: b.astype(np.complex64) + 1, z)
    check(lambda b: np.where(b, 1, 2) + b.astype(bool), z * (np.arange(5) % 2))
    check(lambda b: np.zeros_like(b) + np.ones(b.shape, np.complex64) + np.full(b.shape, 2 - 1j), z)
    all_fused()


def test_complex_to_real_stays_numpy():
    """astype(float) of complex drops the imaginary part with NumPy's ComplexWarning:
    NumPy does it, the rest compiles."""
    z = cmake((4, 5), np.complex128)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(lambda b: (b * 2).astype(np.float64) + 1, z)
    compiled_without_fallback()


SPECIAL = np.array([0, -0.0, 1, -1, np.inf, -np.inf, np.nan, 1e-310, 1e300])


@pytest.mark.parametrize("dtype", CPLX)
def test_special_values(dtype):
    """inf, nan, signed zeros, subnormals and huge parts in every pairing: division by
    zero gives NumPy's inf and nan, abs of an infinite part is inf even with a NaN."""
    with np.errstate(all="ignore"):
        parts = SPECIAL.astype(np.float32 if dtype == np.complex64 else np.float64)
        z = (parts[:, None] + 1j * parts[None, :]).astype(dtype).ravel()
        a, b = z[:, None], z[None, :]
    a, b = np.ascontiguousarray(np.broadcast_to(a, (z.size, z.size))), \
        np.ascontiguousarray(np.broadcast_to(b, (z.size, z.size)))
    for f in (lambda a, b: a / b, lambda a, b: a * b, lambda a, b: a + b,
              lambda a, b: (a == b, a != b), lambda a, b: np.abs(a),
              lambda a, b: np.reciprocal(b), lambda a, b: np.square(a),
              lambda a, b: (np.isnan(a), np.isinf(a), np.isfinite(a)),
              lambda a, b: np.where(np.abs(a) <= 2, a * a + b, a)):
        check(f, a, b)
        all_fused()
    for f in (np.exp, np.log, np.sqrt, np.sin, np.cos, np.tanh):
        check(lambda a, f=f: f(a), z)
        all_fused()


def test_division_by_zero_warns_as_floats_do():
    """The compiled path raises no warning where NumPy would warn (as for floats in
    kernels) and gives NumPy's values."""
    z = cmake((3, 3), np.complex128)
    zero = np.zeros((3, 3), np.complex128)
    f = npcompile.jit(lambda a, b: a / b)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        exp = z / zero
        got = f(z, zero)
    np.testing.assert_array_equal(got, exp)
    all_fused()


@pytest.mark.parametrize("dtype", CPLX)
def test_sums_and_means(dtype):
    z = cmake((40, 30), dtype)
    check(lambda a: (a * 2).sum(), z)
    check(lambda a: np.sum(a * a, axis=0) + a.mean(axis=0), z)
    check(lambda a: np.mean(a - 1j, axis=1, keepdims=True) * a, z)
    check(lambda a: np.add.reduce(a * 1j, axis=1), z)
    check(lambda a: np.sum(a.real * 1, dtype=np.complex128), z)
    all_fused()
    big = cmake((300, 1000), dtype)
    check(lambda a: (a * 1j).sum() + a.mean(), big)
    all_fused()


def test_complex_reductions_numpy_keeps():
    """prod, and min/max (NumPy orders complex numbers lexicographically): NumPy's."""
    z = cmake((4, 5), np.complex128)
    check(lambda a: (a * 2).prod(axis=0), z)
    check(lambda a: np.max(a + 1), z)


def mandelbrot(xmin, xmax, ymin, ymax, n, maxiter):
    x = np.linspace(xmin, xmax, n)
    y = np.linspace(ymin, ymax, n)
    c = x[None, :] + 1j * y[:, None]
    z = np.zeros_like(c)
    counts = np.zeros(c.shape, dtype=np.int32)
    for _ in range(maxiter):
        mask = np.abs(z) <= 2.0
        z = np.where(mask, z * z + c, z)
        counts += mask
    return counts, z


def test_mandelbrot_time_loop():
    """A time loop of complex steps: counts equal NumPy's (the abs behind the mask is
    NumPy's own formula, to the bit), and the body is one kernel."""
    check(mandelbrot, -2.0, 0.5, -1.25, 1.25, 64, 25)
    all_fused(allow=("linspace",))


def schrodinger(psi, v, dt, steps):
    """Split-step-style phase rotation of a wave function, normalized each step."""
    for _ in range(steps):
        psi = psi * np.exp(-1j * v * dt)
        psi = psi / np.sqrt(np.sum(np.abs(psi) ** 2))
    return psi, np.angle(psi).mean()


def test_wave_function_loop():
    x = np.linspace(-5, 5, 200)
    psi = np.exp(-x ** 2 + 2j * x).astype(np.complex128)
    check(schrodinger, psi, 0.5 * x ** 2, 0.01, 20)
    compiled_without_fallback()


def schrodinger_fd(psi, V, dx, dt, steps):
    """Finite differences of a wave function with periodic neighbours (np.roll) and
    pinned ends: the step is one kernel reading the rolled pieces in place."""
    for _ in range(steps):
        lap = (np.roll(psi, 1) - 2 * psi + np.roll(psi, -1)) / dx ** 2
        psi = psi + 1j * dt * (0.5 * lap - V * psi)
        psi[0] = psi[-1] = 0
    return psi, np.sum(np.abs(psi) ** 2) * dx


def slice_stencil(u, steps, a):
    for _ in range(steps):
        u[1:-1] = u[1:-1] + a * (u[2:] - 2 * u[1:-1] + u[:-2]) * 1j
    return u


def test_stencils_of_complex_arrays():
    x = np.linspace(-5, 5, 300)
    psi = np.exp(-x ** 2 + 3j * x)
    for dtype in CPLX:
        check(schrodinger_fd, psi.astype(dtype), 0.5 * x ** 2, x[1] - x[0], 1e-4, 10)
        compiled_without_fallback()
        check(slice_stencil, psi.astype(dtype), 10, 0.1)
        compiled_without_fallback()


def test_complex_constants_are_run_time_values():
    """A complex number that changes from call to call (a phase factor) is read at run
    time by one symbolic kernel, as float constants are: not a compile per value."""
    if not COMPILED or DEVICE == "cuda":
        pytest.skip("CPU kernels")

    def phase(psi, c):
        return psi * c + np.conj(psi) * (c * 2)
    psi = np.exp(1j * np.linspace(0, 3, 100))
    for c in (1 + 2j, 0.5 - 1j, 3j, -2 + 0j, 1.5 + 0.5j, np.complex128(2 - 3j)):
        check(phase, psi, c)
    all_fused()
    sources = {k["source"] for k in npcompile.report()["kernel_sources"]}
    assert len(sources) <= 3, len(sources)   # the first values' kernel, then the symbolic one
    assert any("__builtin_bit_cast(double, S" in s for s in sources)


def test_parts_handed_back_are_views():
    """z.real returned from a graph is NumPy's view of z (it shares z's memory); read by
    a kernel it is computed there."""
    def parts(a):
        z = a * 2
        return z, z.real, z.imag * 1
    got = npcompile.jit(parts)(cmake((3, 4), np.complex128))
    if DEVICE == "cpu":
        assert np.shares_memory(got[0], got[1])
    check(parts, cmake((3, 4), np.complex128))


def test_in_place_updates():
    def step(z, c):
        z *= z
        z += c
        z[np.abs(z) > 4] = 0
        return z
    check(step, cmake((5, 6), np.complex128), cmake((5, 6), np.complex128, 2))
    compiled_without_fallback()


@pytest.mark.skipif(os.environ.get("NPC_BACKEND") == "reference", reason="no kernels")
def test_cpu_loop_vectorizes_complex_data():
    """The struct's copies are part by part (cpp_complex.TYPES): a kernel's where, load
    and store of complex values are plain loads and stores, no memcpy."""
    if not COMPILED or DEVICE == "cuda":
        pytest.skip("CPU kernels")
    z = cmake((64,), np.complex128)
    low = npcompile.jit(lambda a, b: np.where(np.abs(a) <= 2, a * a + b, a)).lower(z, z)
    (k,) = [k for k in low.kernels if k.target == "cpu"]
    assert "struct npc_c128" in k.source and "npc_cabs_npc_c128" in k.source
    assert "const npc_c128& z) : re(z.re), im(z.im)" in k.source


def test_cuda_keeps_complex_as_numpy_steps():
    """The CUDA renderer computes no complex numbers (codegen/cuda.KINDS): with
    device='cuda' the complex ops are NumPy steps between GPU kernels, never a GPU
    kernel of complex text; the kernels around them render and compile to PTX."""
    from npcompile.backends import cuda_runtime
    ok, why = cuda_runtime.compiler_available()
    if not ok or os.environ.get("NPC_BACKEND") == "reference":
        pytest.skip(f"NVRTC unavailable: {why}")
    x = make((64, 32), np.float64)

    def mixed(x):
        y = np.sin(x) * 2 + 1
        z = y * 1j + x
        return np.abs(z * z) + y.sum(axis=1, keepdims=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        low = npcompile.jit(mixed, device="cuda").lower(x)
    kernels = [k for k in low.kernels if k.target == "cuda"]
    assert kernels
    for k in kernels:
        assert "npc_c128" not in k.source and f".visible .entry {k.name}(" in k.ptx
    cuda = [g for g in low.graphs if getattr(g, "target", "") == "cuda"]
    assert cuda and any(s[0] == "numpy" and s[1].label == "multiply" for g in cuda
                        for s in g.plan.steps)
    check(mixed, x)
