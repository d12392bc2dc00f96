"""Scans (np.cumsum, np.cumprod, ufunc.accumulate) computed inside CPU kernels
(fusion/expr.py's scan, codegen/cpp_scan.py): NumPy's values to the bit (a running
application of the ufunc in order, as NumPy's accumulate loop), its dtypes (cumsum of
int32 or bool is the platform int; dtype=), shapes and scalar types, on every axis and
flattened, on strided and empty inputs; the work before a scan fuses into its loads and
the elementwise work after it into its loop nest."""
import copy
import warnings

import numpy as np
import pytest

import npcompile
from conftest import DEVICE, DTYPES, _compiled, check, make, same

COMPILED = _compiled()


def _bits(v):
    v = np.asarray(v)
    return v.view(f"u{v.dtype.itemsize}") if v.dtype.kind == "f" else v


def exact(fn, *args):
    """fn through npcompile.jit, twice, equals eager NumPy bit for bit (type, dtype,
    shape, every bit of every float: NaNs and signed zeros included)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        exp = fn(*copy.deepcopy(args))
        jitted = npcompile.jit(fn, device=DEVICE)
        raw = [jitted(*copy.deepcopy(args)) for _ in range(2)]
    got = [_host(r) for r in raw]
    for r, g in zip(raw, got):
        if DEVICE == "cuda":    # the GPU's reductions add in their own order
            # (as returned: same() reads a 0-d DeviceArray as the NumPy scalar it holds,
            # where .get() alone gave a 0-d ndarray, a type NumPy's scalar is not)
            same(r, exp)
            continue
        gs, es = (g, exp) if isinstance(exp, tuple) else ((g,), (exp,))
        assert type(gs) is type(es) and len(gs) == len(es)
        for a, b in zip(gs, es):
            assert type(a) is type(b), (type(a), type(b))
            assert a.dtype == b.dtype and a.shape == b.shape, (a.dtype, b.dtype, a.shape, b.shape)
            assert np.array_equal(_bits(a), _bits(b)), (a, b)
    return got[0]


def _host(v):
    """device="cuda" hands back DeviceArrays: what they hold."""
    if isinstance(v, tuple):
        return tuple(_host(x) for x in v)
    return v.get() if type(v).__name__ == "DeviceArray" else v


def scans_compiled(n_kernels=None):
    """Every scan of the last graph ran inside a compiled kernel (none as a NumPy step),
    nothing fell back, and (when given) the graph made that many kernels. (The CUDA
    backend runs scans as steps: its values are checked, not its kernels.)"""
    if not COMPILED or DEVICE == "cuda":
        return
    rep = npcompile.report()
    assert rep["fallbacks"] == [], rep["fallbacks"]
    graph = rep["fusion_graphs"][-1]
    scans = [n for n in graph["nodes"] if n["op"] in ("cumsum", "cumprod") or
             n["op"].endswith(".accumulate")]
    assert scans, graph
    assert all(n["kernel"] >= 0 for n in scans), graph
    assert not any("runs in NumPy" in d and ("cum" in d or "accumulate" in d)
                   for d in graph["decisions"]), graph["decisions"]
    if n_kernels is not None:
        assert max(n["kernel"] for n in graph["nodes"]) + 1 == n_kernels, graph


SCANS = {
    "cumsum": lambda x, **kw: np.cumsum(x, **kw),
    "cumprod": lambda x, **kw: np.cumprod(x, **kw),
    "add": lambda x, **kw: np.add.accumulate(x, **kw),
    "multiply": lambda x, **kw: np.multiply.accumulate(x, **kw),
    "maximum": lambda x, **kw: np.maximum.accumulate(x, **kw),
    "minimum": lambda x, **kw: np.minimum.accumulate(x, **kw),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", list(SCANS))
def test_values_and_dtypes_on_every_axis(name, dtype):
    scan = SCANS[name]
    a = make((7, 9), dtype, low=-3, high=3)    # small values: products that still vary
    for axis in (0, 1, -1):
        exact(lambda x: scan(x, axis=axis), a)
        scans_compiled()
    if name.startswith("cum"):
        exact(lambda x: scan(x), a)             # flattened
        scans_compiled()
    exact(lambda x: scan(x[:, 2]), a)           # 1-d (a strided column)
    scans_compiled()


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.int32, np.uint16, np.float32])
def test_dtype_argument(dtype):
    a = make((5, 6), dtype, low=-4, high=4)
    for target in (np.float64, np.int64, np.float32, np.int16):
        if np.dtype(dtype).kind == "f" and np.dtype(target).kind == "i":
            continue   # NumPy's unsafe float->int cast of the input: its own step
        exact(lambda x: np.cumsum(x, axis=1, dtype=target), a)
        scans_compiled()
        exact(lambda x: np.cumprod(x, dtype=target), a)
        scans_compiled()
        exact(lambda x: np.add.accumulate(x, axis=0, dtype=target), a)
        scans_compiled()


@pytest.mark.parametrize("ufunc", [np.logical_or, np.logical_and, np.logical_xor,
                                   np.bitwise_xor, np.bitwise_or, np.fmax, np.fmin,
                                   np.subtract])
def test_other_accumulating_ufuncs(ufunc):
    for dtype in (np.bool_, np.int32, np.uint8, np.float64):
        a = make((6, 5), dtype, low=-3, high=3)
        try:
            ufunc.accumulate(a)
        except TypeError:
            continue      # no such loop (bitwise ops of floats, bool subtract)
        exact(lambda x: ufunc.accumulate(x, axis=1), a)
        scans_compiled()
        exact(lambda x: ufunc.accumulate(x[::-1] * 1, axis=0), a)
        scans_compiled()


def test_floats_bit_for_bit_on_long_axes():
    """A float32 running sum of 100,000 terms, in float32 and in order: every partial
    sum is NumPy's (a reassociated or widened sum would differ in the last bits)."""
    rng = np.random.default_rng(3)
    f32 = rng.standard_normal(100_000).astype(np.float32)
    f64 = rng.standard_normal((300, 400))
    exact(lambda x: np.cumsum(x * 1.5), f32)
    scans_compiled()
    exact(lambda x: np.cumprod(1.0 + x * 1e-3, axis=0), f64)
    scans_compiled()
    exact(lambda x: np.cumsum(x, axis=1) - x, f64)
    scans_compiled()
    exact(lambda x: np.cumsum(x.T), f64)     # flattened, in the transpose's order
    scans_compiled()


def test_nan_and_signed_zeros():
    a = np.array([[0.0, -0.0, np.nan, 1.0, -0.0, 0.0],
                  [-0.0, 0.0, -0.0, np.inf, np.nan, -np.inf]])
    for ufunc in (np.maximum, np.minimum, np.add, np.multiply):
        exact(lambda x: ufunc.accumulate(x, axis=1), a)
        scans_compiled()
        exact(lambda x: ufunc.accumulate(x, axis=0), a)
        scans_compiled()
    # which zero fmax and fmin give on a tie of 0.0 and -0.0 differs between NumPy's own
    # loops (NumPy 2: its row-by-row loop keeps the first, its accumulate loop the second)
    b = np.where(a == 0, 2.0, a)
    for ufunc in (np.fmax, np.fmin):
        exact(lambda x: ufunc.accumulate(x, axis=1), b)
        scans_compiled()
        exact(lambda x: ufunc.accumulate(x, axis=0), b)
        scans_compiled()


def test_layouts_and_shapes():
    a = make((6, 8), np.float64)
    b = make((3, 4, 5), np.int32)
    exact(lambda x: np.cumsum(x[::2, ::-1], axis=1), a)         # strided, reversed
    exact(lambda x: np.cumsum(np.asfortranarray(x) * 2, axis=0), a)
    exact(lambda x: np.cumsum(x.T, axis=0), a)
    scans_compiled()
    for axis in (0, 1, 2, None):
        exact(lambda x: np.cumsum(x + 1, axis=axis), b)         # 3-d, the middle axis too
        scans_compiled()
        exact(lambda x: np.maximum.accumulate(x.transpose(2, 0, 1), axis=axis or 0), b)
        scans_compiled()
    exact(lambda x: np.cumprod(x[:, :1] + 1, axis=1), a)        # an axis of one
    exact(lambda x: np.cumsum(x.max() * 2), a)                  # 0-d: shape (1,)


def test_empty():
    for shape in ((0,), (0, 4), (4, 0)):
        a = np.zeros(shape)
        exact(lambda x: np.cumsum(x * 2, axis=-1), a)
        exact(lambda x: np.cumsum(x + 1), a)
        exact(lambda x: np.maximum.accumulate(x - 1, axis=0), a)


def test_producers_and_consumers_fuse():
    """A drawdown: the scan, its producer and the elementwise work after it are one
    kernel (one memory pass); a random walk's steps and their running sum too."""
    r = make((200, 30), np.float64) * 1e-3

    def drawdown(ret):
        prices = 100.0 * np.cumprod(1.0 + ret, axis=0)
        peak = np.maximum.accumulate(prices, axis=0)
        return (prices - peak) / peak
    exact(drawdown, r)
    scans_compiled(n_kernels=1)

    def walk(u):
        steps = np.where(u > 0, 1, -1)
        pos = np.cumsum(steps, axis=1)
        return pos * pos
    exact(walk, r)
    scans_compiled(n_kernels=1)


def test_readers_at_other_places():
    """Readers that do not read a scan element for element load it once written: a
    normalization by its last element, a reduction, a broadcast, a view; and a reader of
    the same shape that a kernel of another shape separates from it."""
    h = make((64,), np.int64, low=0, high=20)
    exact(lambda x: (lambda c: c / c[-1])(x.cumsum()), h)
    scans_compiled()
    a = make((20, 16), np.float64)
    exact(lambda x: np.cumsum(x * 2, axis=1).sum(axis=1), a)
    scans_compiled()
    exact(lambda x: (lambda w: w - np.linspace(0, 1, 16) * w[:, -1:])(np.cumsum(x, axis=1)), a)
    scans_compiled()
    exact(lambda x: np.cumsum(x, axis=0)[::3, 1:] * 2, a)
    scans_compiled()

    def separated(x):
        c = np.cumsum(x * 2, axis=0)
        m = c.max()
        return c * 3 + m, np.maximum.accumulate(x, axis=1).mean() + c
    exact(separated, a)
    scans_compiled()

    def twice(x):
        c = np.cumsum(x * 2, axis=1)      # along the innermost axis: written by no one,
        first = c + 1                     # computed in the kernel of each reader
        m = x.max()
        return first, c * m, np.sort(x, axis=0) - c   # after a NumPy step too
    exact(twice, a)
    scans_compiled()


def test_scan_of_a_scan():
    a = make((9, 7), np.float64)
    exact(lambda x: np.cumsum(np.cumsum(x, axis=0), axis=1), a)
    scans_compiled()
    exact(lambda x: np.maximum.accumulate(np.cumsum(x, axis=1), axis=1) + 1, a)
    scans_compiled()
    exact(lambda x: np.cumsum(np.cumsum(x, axis=1)), a)         # flattened after
    scans_compiled()


def test_in_a_loop():
    def f(x, n):
        acc = np.zeros_like(x)
        for k in range(n):
            acc = acc + np.cumsum(x * k, axis=-1)
        return acc
    exact(lambda x: f(x, 5), make((4, 6), np.float64))


def test_out_argument():
    """out= of the result's shape and dtype: NumPy's values land in it (and in place, in
    the input itself), the call returns it, and the write fuses into the scan's kernel."""
    a = make((5, 6), np.float64)

    def into(x, o):
        r = np.cumsum(x * 2, axis=1, out=o)
        np.maximum.accumulate(x, axis=0, out=x)         # in place
        return r is o, o + 1, np.multiply.accumulate(x[0], out=(o[0],)) is not None
    exact(lambda x, o: np.cumsum(x * 2, axis=1, out=o) + 1, a, np.zeros((5, 6)))
    scans_compiled(n_kernels=1)
    exact(lambda x, o: into(x, o)[1], a, np.zeros((5, 6)))
    scans_compiled()
    check(into, a, np.zeros((5, 6)))                    # the arrays after the call
    check(lambda x, o: np.cumsum(x, out=o), a, np.zeros(30))
    # another dtype or shape: NumPy's own call
    check(lambda x, o: np.cumsum(x * 2, axis=0, out=o), a, np.zeros((5, 6), np.float32))
    check(lambda x, o: np.cumsum(x * 2, out=o), a, np.zeros(12))


def test_errors_and_unsupported_are_numpys():
    a = make((3, 4), np.float64)
    check(lambda x: np.cumsum(x, axis=2), a)
    check(lambda x: np.maximum.accumulate(x.sum()), a)
    check(lambda x: np.cumsum(x.astype(np.float16), axis=0) + 1, a)   # float16: NumPy's
    check(lambda x: np.cumsum(x, dtype=np.int64), a)                  # unsafe float->int
    check(lambda x: np.cumsum(x * 1j, axis=1), a)                     # complex: NumPy's


def test_targets_without_scans_keep_numpy_steps():
    """The CUDA backend's kernels compute no scans: for it, a scan stays a NumPy step
    between kernels, as before."""
    from npcompile.backends.cuda import Program as CudaProgram
    from npcompile.fusion.expr import Expr, Lowering
    from npcompile.graph.node import Node, Ref
    assert CudaProgram.scans is False
    leaf = Node.leaf(make((4, 5), np.float64))
    node = Node(np.cumsum, (Ref(0),), {"axis": 1}, (leaf,), np.dtype(np.float64), (4, 5), "cumsum")
    load = Expr("load", leaf, [], leaf.shape, leaf.dtype, node=leaf)
    assert Lowering(scans=False).lower(node, [load]) is None
    assert Lowering(scans=True).lower(node, [load]).kind == "scan"


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.bool_])
def test_nancumsum_and_nancumprod_compose(dtype):
    """np.nancumsum / np.nancumprod are NumPy's composition (NaN -> identity, then the
    scan): one kernel."""
    a = make((6, 7), dtype, low=-3, high=3)
    if np.dtype(dtype).kind == "f":
        a[a > 5] = np.nan
    for axis in (None, 0, 1):
        exact(lambda x: np.nancumsum(x, axis=axis), a)
        scans_compiled(n_kernels=1)
        exact(lambda x: np.nancumprod(x * 1, axis=axis), a)
        scans_compiled(n_kernels=1)
    exact(lambda x: np.nancumsum(x, dtype=np.float64), a)
    check(lambda x: np.nancumsum(x, axis=3), a)


@pytest.mark.skipif(not hasattr(np, "cumulative_sum"), reason="NumPy 2.1's functions")
def test_cumulative_sum_and_prod():
    a = make((5, 6), np.float64)
    i = make((5, 6), np.int32, low=-3, high=3)
    for x in (a, i):
        for kw in ({"axis": 0}, {"axis": -1}, {"axis": 1, "include_initial": True},
                   {"axis": 0, "dtype": np.float32, "include_initial": True}):
            exact(lambda v: np.cumulative_sum(v * 2, **kw) + 1, x)
            scans_compiled()
            exact(lambda v: np.cumulative_prod(v, **kw), x)
            scans_compiled()
        exact(lambda v: np.cumulative_sum(v[0]), x)
        exact(lambda v: np.cumulative_sum(v[:, 1], include_initial=True), x)
        exact(lambda v: np.cumulative_prod(v[0, 0] * 1, include_initial=True), x)
    check(lambda v: np.cumulative_sum(v), a)            # 2-d without an axis: NumPy's error
    check(lambda v: np.cumulative_sum(v, axis=2), a)
    exact(lambda v: np.cumulative_sum(v[:, :0], axis=1, include_initial=True), a)


def test_sizes_that_change_in_a_loop():
    """A loop whose slices grow: the scan kernels take their sizes at run time
    (codegen/cpp.py's symbolic kernels), along an inner and an outer axis and flattened."""
    def f(x):
        out = []
        for k in range(1, 6):
            out.append(np.cumsum(x[:k * 3] * 2, axis=0)[-1])
            out.append(np.maximum.accumulate(x[:k, :k + 1] + 1, axis=1).min())
            out.append(np.cumprod(x[:k] * 0.5).max())
        return out
    exact(lambda x: tuple(f(x)), make((16, 8), np.float64))


def test_flattened_scan_of_many_dimensions_at_new_sizes():
    """np.cumsum without an axis of a 3-d array, again at other sizes: the kernel that
    serves several sizes takes them at run time, and its flat index divides by their
    product (i / S0*S1 was (i / S0) * S1: it read past the input, found by the fuzzer)."""
    def f(c):
        return np.cumsum(c), np.cumprod(c[::-1] % 3 + 1)
    for shape in ((2, 3, 4), (2, 3, 4), (3, 4, 5), (4, 2, 6)):
        exact(f, make(shape, np.int32))
    scans_compiled()


def test_reductions_and_broadcasts_inside_a_scan():
    a = make((12, 9), np.int64)
    exact(lambda x: np.cumsum(x.max(axis=1) - x[:, 0]), a)         # a reduction per element
    scans_compiled(n_kernels=1)
    exact(lambda x: np.cumsum(x[:, :1] * x[:1, :]), a)             # an outer product, flattened
    scans_compiled(n_kernels=1)
    exact(lambda x: np.cumsum(np.broadcast_to(x[0], (5, 9)), axis=0), a)
    scans_compiled()
    exact(lambda x: (np.cumsum(x, axis=0), np.cumsum(x, axis=1)), a)  # both axes: one call
    scans_compiled()


def test_dtype_casts_numpy_refuses():
    i = make((4, 5), np.int64)
    check(lambda x: np.cumsum(x, dtype=np.uint8), i)
    check(lambda x: np.add.accumulate(x, dtype=np.bool_), i)
    check(lambda x: np.maximum.accumulate(x * 1.5, dtype=np.int32), i)


def test_work_without_a_scan_keeps_its_threads():
    """A 1-d scan runs in one call; independent elementwise work of the same shape gets
    a kernel of its own (split across threads) rather than the scan's loop nest."""
    def f(x):
        c = np.cumsum(x * 2)
        d = c - 1
        return c, x * x + 3, d
    exact(f, make((1000,), np.float64))
    scans_compiled(n_kernels=2)
    if COMPILED and DEVICE != "cuda":
        kernel = {n["op"]: n["kernel"] for n in npcompile.report()["fusion_graphs"][-1]["nodes"]}
        assert kernel["cumsum"] == kernel["subtract"] != kernel["add"]


def test_scans_as_pieces_of_a_concatenation():
    """A scan along the innermost axis read as a piece of a concatenation is computed in
    the concatenation's loop (a leading 0 before a cumulative sum: one kernel); read
    through a view of that concatenation, it is written first."""
    x = make((40,), np.float64)
    w = make((6, 9), np.float64)
    exact(lambda v: np.concatenate(([0.0], np.cumsum((v[1:] + v[:-1]) * 0.25))), x)
    scans_compiled(n_kernels=1)
    exact(lambda v: np.concatenate((np.zeros((6, 1)), np.cumsum(v * 2, axis=1)), axis=1), w)
    scans_compiled(n_kernels=1)
    exact(lambda v: np.concatenate((np.cumsum(v, axis=1), v, np.cumsum(v, axis=1)), axis=0), w)
    scans_compiled(n_kernels=1)
    exact(lambda v: np.concatenate((v[:, :2], np.maximum.accumulate(v, axis=1), v[:, :1]),
                                   axis=1) * 3, w)
    scans_compiled(n_kernels=1)
    exact(lambda v: np.append(np.insert(np.cumsum(v), 0, 0.0), 7.0) - 1, x)
    scans_compiled()
    exact(lambda v: np.concatenate(([0.0], np.cumsum(v)))[::-1] + 1, x)      # a view of it
    scans_compiled()
    exact(lambda v: np.concatenate(([1], np.cumprod(v[:10] * 0.5)))[3:] * 2, x)
    scans_compiled()
    exact(lambda v: np.roll(np.cumsum(v, axis=1), 2, axis=1), w)
    scans_compiled()
    exact(lambda v: np.concatenate((np.cumsum(v, axis=0), v), axis=1), w)   # an outer axis
    scans_compiled()
