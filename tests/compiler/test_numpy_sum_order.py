"""Float sums give NumPy's bits (issue 16): the compiled kernels add the terms in NumPy's
pairwise order (codegen/numpy_sum_order.py), so results compare with ==, not allclose;
a layout whose order is not reproduced runs in NumPy, and the report says so."""
import numpy as np
import pytest

import npcompile
from conftest import DEVICE, run_both
from npcompile.codegen import numpy_sum_order
from test_trace_loops import COMPILED, compiled_without_fallback

LENGTHS = [1, 7, 8, 9, 127, 128, 129, 1000, 8191, 8193, 10 ** 5 + 3]
FLOATS = [np.float32, np.float64]
pytestmark = pytest.mark.skipif(DEVICE == "cuda", reason="the CPU kernels' order")


def spread(shape, dtype, seed=0):
    """Values over many binades with both signs: most orders round differently."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape) * np.exp(rng.uniform(0, 12, shape))
    return x.astype(dtype)


def exact(fn, *args, fallback=False, kernels=True):
    """fn compiled gives NumPy's value bit for bit (and type, dtype, shape), on the
    compiled path (no fallback) unless `fallback` says NumPy's own steps are expected."""
    calls, exp, _ = run_both(fn, *args)
    for got, _ in calls:
        _same_bits(got, exp)
    if fallback and COMPILED:
        # the sum is a NumPy step of the compiled program, said in its plan; no fallback
        assert npcompile.report()["fallbacks"] == []
        said = [d for g in npcompile.report()["fusion_graphs"] for d in g["decisions"]]
        assert any("a float sum in a memory order NumPy keeps to itself" in d
                   for d in said), said
    else:
        compiled_without_fallback(kernels)


def _same_bits(got, exp):
    if isinstance(exp, tuple):
        assert type(got) is tuple and len(got) == len(exp)
        for g, e in zip(got, exp):
            _same_bits(g, e)
        return
    assert type(got) is type(exp), (type(got), type(exp))
    assert got.dtype == exp.dtype and got.shape == exp.shape
    assert np.array_equal(got, exp, equal_nan=True), (got, exp)


@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_full_sums_of_awkward_lengths(n, dtype):
    x = spread(n, dtype)
    exact(lambda a: a.sum(), x)
    exact(lambda a: np.add.reduce(a * a), x)
    exact(lambda a: np.mean(a), x)


@pytest.mark.parametrize("n", [9, 129, 1000, 8193])
@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_var_std_norm_nansum(n, dtype):
    x = spread(n, dtype, seed=1)
    exact(lambda a: a.var(), x)
    exact(lambda a: np.std(a, ddof=1), x)
    exact(lambda a: np.linalg.norm(a - 1), x)     # NumPy's: a BLAS dot, run there
    exact(lambda a: np.linalg.norm(a.reshape(1, -1), axis=1), x)   # add.reduce
    y = x.copy()
    y[::5] = np.nan
    exact(lambda a: np.nansum(a), y)


SHAPES = [(3, 1000), (7, 129), (100, 100), (5, 9000), (4, 5, 6), (30, 1, 300), (2, 8193)]
AXES = [None, 0, -1, (0, 1), 1]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_axes_of_c_ordered_arrays(shape, dtype):
    x = spread(shape, dtype, seed=2)
    for axis in AXES:
        exact(lambda a: a.sum(axis=axis), x)
        exact(lambda a: np.sum(a * 3 - 1, axis=axis, keepdims=True), x)
        exact(lambda a: a.mean(axis=axis), x)
        exact(lambda a: a.std(axis=axis), x)


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_views_walked_as_numpy_walks_them(dtype):
    """A row slice (its rows are runs), a column, every other element, a block of rows:
    NumPy's order without a copy."""
    x = spread((130, 70), dtype, seed=3)
    exact(lambda a: a[:, 1:-1].sum(axis=1), x)
    exact(lambda a: a[:, 1:-1].sum(axis=0), x)
    exact(lambda a: a[:, 3].sum(), x)
    exact(lambda a: a[::2].mean(axis=-1), x)
    exact(lambda a: a[10:90].sum(), x)
    exact(lambda a: (a[:, 1:] - a[:, :-1]).sum(), x)   # computed: a fresh C-order array


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_transposed_and_reversed_operands(dtype):
    """NumPy walks an operand in memory order (a Fortran-order array, a transpose, and
    the arrays it computes from them) and every axis from index 0 up (a reversed one
    too): so do the kernels."""
    x = spread((130, 70), dtype, seed=4)
    f = np.asfortranarray(x)
    for axis in (None, 0, 1):
        exact(lambda a: a.sum(axis=axis), f)
        exact(lambda a: a.T.mean(axis=axis), x)
        exact(lambda a: (a.T * 2 - a.T[::-1]).sum(axis=axis), x)
        exact(lambda a: a.var(axis=axis), f)
    exact(lambda a: a[::-1].sum(axis=0), x)
    exact(lambda a: a[:, ::-1].sum(axis=1), x)
    exact(lambda a: np.sum(spread_3d_perm(a)), x)


def spread_3d_perm(a):
    return a.reshape(10, 13, 70).transpose(1, 2, 0) * 0.5


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_layouts_not_reproduced_run_in_numpy(dtype):
    """Several reduced axes that are not one contiguous stretch: NumPy copies them
    through buffers whose size NumPy 2 picks from the whole iteration. NumPy's values
    through NumPy's own steps, said in the plan; the rest of the graph still compiles
    (it ran op by op in NumPy, as a compile failure, before)."""
    x = spread((130, 70), dtype, seed=4)
    exact(lambda a: a[:, 1:-1].sum(), x, fallback=True)
    exact(lambda a: a[::-1].mean(), x, fallback=True)
    exact(lambda a: a[::2, ::2].sum(axis=(0, 1)), x, fallback=True)
    # the sum's operand and what follows it are kernels around the NumPy step
    exact(lambda a: np.sqrt((np.abs(a.T * 2 - 1)).sum()) + a * 3, x, fallback=True)
    assert sum(c["kernels"] for c in npcompile.report()["compiles"]) >= 2 if COMPILED \
        else True


def test_a_reversed_ancestry_keeps_numpys_order_and_compiles(dtype=np.float32):
    """NumPy allocates a value computed from reversed arrays in C order (positive
    strides, its operands' axis order): a reflecting np.pad's neighbours summed over two
    axes compile with NumPy's bits, where the whole graph ran in NumPy before."""
    x = spread((40, 30), dtype, seed=5)
    exact(lambda a: np.mean(np.abs(np.pad(a, 2, mode="reflect")[1:41, 2:32] - a)), x)
    exact(lambda a: (a[::-1, ::-1] * 2 - a).sum(axis=(0, 1)), x)


def test_a_cast_inside_the_reduction_sums_in_buffer_pieces():
    """dtype= and the float64 mean of integers: NumPy casts through buffers, both
    versions cut a run into buffer-size pieces."""
    rng = np.random.default_rng(5)
    xi = rng.integers(-2 ** 50, 2 ** 50, (7, 9000))
    exact(lambda a: a.mean(), xi)
    exact(lambda a: a.mean(axis=1), xi)
    x = spread(20000, np.float32, seed=6)
    exact(lambda a: a.sum(dtype=np.float64), x)


def test_uint8_image_blur_rounds_like_numpy():
    """The corpus' unsharp mask in small: a float32 kernel normalized by its sum; one
    last-bit difference became a wrong uint8 pixel."""
    rng = np.random.default_rng(7)
    img = rng.integers(0, 256, (60, 50)).astype(np.uint8)

    def blur(im, sigma):
        xs = np.arange(-4, 5)
        k = np.exp(-xs ** 2 / (2 * sigma ** 2)).astype(np.float32)
        k = k / k.sum()
        f = im.astype(np.float32)
        out = np.zeros((f.shape[0], f.shape[1] - 8), np.float32)
        for i in range(9):
            out += k[i] * f[:, i:i + out.shape[1]]
        return out.astype(np.uint8), out.sum(axis=1), out.mean()
    exact(blur, img, 1.5)


def test_the_probe_tells_numpy_versions_apart():
    """NumPy 1.x hands a contiguous run over in buffer-size pieces, 2.x whole."""
    piece = numpy_sum_order.unbuffered_piece()
    if np.lib.NumpyVersion(np.__version__) < "2.0.0":
        assert piece == np.getbufsize()
    else:
        assert piece is None


def test_sizes_that_change_in_a_loop():
    """A symbolic kernel (sizes at run time) sums a shrinking contiguous tail."""
    def tails(x):
        out = np.zeros(6, x.dtype)
        for k in range(6):
            out[k] = x[k * 1000:].sum()
        return out
    exact(tails, spread(9000, np.float32, seed=8))

    def blocks(x):
        out = np.zeros(6, x.dtype)
        for k in range(6):
            out[k] = x[k * 7:].sum() + x[k * 7:, 1:].sum(axis=1).mean()
        return out
    exact(blocks, spread((60, 301), np.float64, seed=9))   # several axes in one run
    if COMPILED:
        srcs = [k["source"] for k in npcompile.report()["kernel_sources"]]
        assert any("given at run time" in s and "<true>" in s for s in srcs)


@pytest.mark.parametrize("threads", [1, 3])
def test_split_full_sums_combine_as_numpy(threads):
    """A full sum large enough to run on several threads: its units are NumPy's pieces
    (1.x, or a cast) or pairwise subtrees (2.x), combined as NumPy combines them."""
    from npcompile._native import cpu as native
    from test_cpu_perf import _split_kernels, program_of
    x = spread(1_000_003, np.float32, seed=9)
    before = native.num_threads()
    try:
        native.set_num_threads(threads)
        for fn in (lambda a: np.sum(a * a) - np.sum(a), lambda a: a.sum(dtype=np.float64),
                   lambda a: a[:1_000_000].reshape(1000, 1000).mean()):
            exact(fn, x)
            if COMPILED:
                p, _ = program_of(fn, x)
                assert _split_kernels(p)
    finally:
        native.set_num_threads(before)


def test_sums_of_slices_in_a_compiled_loop_nest():
    """np.sum of a vector slice inside a Python loop compiled as one C function
    (codegen/scalar_nest.py): NumPy's pairwise order there too."""
    def prefix_sums(A):
        n = A.shape[0]
        out = np.zeros(n)
        for i in range(n):
            out[i] = np.sum(A[i, :i + 1] * 2.0) + A[:i + 1, i].sum()
        return out
    exact(prefix_sums, spread((300, 300), np.float64, seed=10), kernels=False)
    if COMPILED:
        assert any("one compiled function" in lp["summary"]
                   for lp in npcompile.report()["loops"])


@pytest.mark.parametrize("n", [1, 3, 4, 5, 63, 64, 65, 129, 1000, 8193])
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128], ids=lambda d: np.dtype(d).name)
def test_complex_sums(n, dtype):
    """A complex sum is NumPy's pairwise sum of 2n numbers: blocks of 4 terms, each part
    with its own partial sums."""
    z = (spread(n, np.float64, seed=11) + 1j * spread(n, np.float64, seed=12)).astype(dtype)
    exact(lambda a: a.sum(), z)
    exact(lambda a: np.sum(a * 2 - a.real), z)
    w = z[: n - n % 3].reshape(3, -1) if n >= 3 else z.reshape(1, -1)
    for axis in (None, 0, 1):
        exact(lambda a: a.sum(axis=axis), w)
        exact(lambda a: a.T.sum(axis=axis), w)
    if dtype == np.complex128:   # complex64's mean divides in complex128 under NumPy 1.x
        exact(lambda a: a.mean(), z)
