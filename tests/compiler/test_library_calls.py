"""Library functions declared by their result shapes (trace/library_rules.SHAPES) run as
NumPy steps inside the graph: no graph break, NumPy's values, dtypes, shapes, scalar
types and errors, edge cases included, and the work around them compiles."""
import numpy as np
import pytest

import npcompile
from conftest import check, make
from test_trace_loops import compiled_without_fallback


def no_break():
    assert npcompile.report()["graph_breaks"] == []
    compiled_without_fallback()


A = make((6, 5), np.float64)
I = make((6, 5), np.int32, 1, low=-9, high=9)

CASES = {
    "sort": lambda x: np.sort(x * 2, axis=0) + 1,
    "sort_flat": lambda x: np.sort(x + 1, axis=None)[::2],
    "argsort": lambda x: np.argsort(-x, kind="stable") * 1,
    "median": lambda x: np.median(x * 1) + x.sum(),
    "median_axis": lambda x: np.median(x + 0, axis=1, keepdims=True) - x,
    "percentile": lambda x: np.percentile(x * 1, [10, 50, 90], axis=0) * 2,
    "quantile_scalar": lambda x: np.quantile(x + 0, 0.3) * 2,
    "nansum": lambda x: np.nansum(np.where(x > 0, np.nan, x), axis=0) + 1,
    "nanmax": lambda x: np.nanmax(np.where(x > 0, np.nan, x)) + 1,
    "nanmean_keep": lambda x: np.nanmean(np.where(x > 0, np.nan, x), axis=-1, keepdims=True),
    "ptp": lambda x: np.ptp(x * 2, axis=1) + 0,
    "average": lambda x: np.average(x * 2, axis=0, weights=np.arange(x.shape[0]) + 1.0),
    "around": lambda x: np.around(x * 3.7, 1) + np.round(x, 2),
    "take": lambda x: np.take(x * 2, np.array([0, 3, -1]), axis=1) + 1,
    "take_flat": lambda x: np.take(x + 1, [[1, 2], [5, 7]]) * 2,
    "searchsorted": lambda x: np.searchsorted(np.sort(x[:, 0]), x[0] * 2) + 1,
    "interp": lambda x: np.interp(x * 2, np.linspace(-20, 20, 9), np.arange(9.0)) + 1,
    "polyval": lambda x: np.polyval([1.0, -2.0, 0.5], x * 1) * 2,
    "isclose": lambda x: np.isclose(x, x * (1 + 1e-9)) & (x > 0),
    "einsum": lambda x: np.einsum("ij,kj->ik", x * 2, x) + 1,
    "einsum_implicit": lambda x: np.einsum("ij,jk", x[:5] + 1, x[:5]) * 2,
    "einsum_trace": lambda x: np.einsum("ii->", x[:5] * 1) + 1,
    "tensordot": lambda x: np.tensordot(x * 2, x, axes=([0], [0])) - 1,
    "kron": lambda x: np.kron(x[:2, :2] * 2, x[:3, :1]) + 1,
    "trace": lambda x: np.trace(x * 2) + x.mean(),
    "meshgrid": lambda x: [g * 2 for g in np.meshgrid(x[0] * 1, x[:, 0] + 1)],
    "meshgrid_ij": lambda x: [g + 1 for g in np.meshgrid(x[0] * 1, x[:, 0], indexing="ij")],
    "histogram": lambda x: [h * 1 for h in np.histogram(x * 2, bins=4)],
    "histogram_edges": lambda x: [h * 1 for h in np.histogram(x * 2, bins=[-30, 0, 1, 30])],
    "cov": lambda x: np.cov(x * 2) + 1,
    "cov_cols": lambda x: np.cov(x + 0, rowvar=False, ddof=0),
    "corrcoef": lambda x: np.corrcoef(x[:3] * 2),
    "fft": lambda x: np.abs(np.fft.fft(x * 2, axis=0)) + 1,
    "ifft_n": lambda x: np.abs(np.fft.ifft(x + 1, n=8)) * 2,
    "rfft_irfft": lambda x: np.fft.irfft(np.fft.rfft(x * 1, axis=-1) * 0.5, n=x.shape[-1]) + 1,
    "irfft_default": lambda x: np.fft.irfft(np.fft.rfft(x[:, :4] * 1)) * 2,
    "fft2": lambda x: np.abs(np.fft.ifft2(np.fft.fft2(x * 2), s=(4, 3))) - 1,
    "fftshift": lambda x: np.fft.fftshift(x * 2, axes=0) + np.fft.ifftshift(x),
    # methods that are their function
    "method_cumsum": lambda x: (x * 2).cumsum(axis=0) + (x + 1).cumprod(axis=1),
    "method_cumsum_flat": lambda x: (x * 2).cumsum() * 2,
    "method_round": lambda x: (x * 1.37).round(1) * 2 + (x * 3).round(),
    "method_argsort": lambda x: (x + 1).argsort(axis=0) * 1,
    "method_diagonal": lambda x: (x * 2).diagonal(1) + 1,
    "method_trace": lambda x: (x - 1).trace() * 2,
    "method_take": lambda x: (x + 1).take([0, 3, -1], axis=1) * 2,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_library_call_in_the_graph(name):
    for a in (A, I):
        if a is I and name in ("nansum", "nanmax", "nanmean_keep", "interp", "around"):
            continue
        check(CASES[name], a)
        no_break()


LINALG = {
    "cholesky": lambda x: np.linalg.cholesky(x.T @ x + 6 * np.eye(5)) * 2,
    "qr": lambda x: [m * 1 for m in np.linalg.qr(x * 2)],
    "qr_complete": lambda x: [m + 0 for m in np.linalg.qr(x, mode="complete")],
    "svd_values": lambda x: np.linalg.svd(x * 2, compute_uv=False) + 1,
    "eigh": lambda x: [m * 1 for m in np.linalg.eigh(x.T @ x)],
    "eigvalsh": lambda x: np.linalg.eigvalsh(x.T @ x) * 2,
    "det": lambda x: np.linalg.det(x[:5] * 2) + 1,
    "pinv": lambda x: np.linalg.pinv(x * 2) + 1,
    "matrix_power": lambda x: np.linalg.matrix_power(x[:5] * 0.5, 3) + 1,
}


@pytest.mark.parametrize("name", sorted(LINALG))
def test_linear_algebra_in_the_graph(name):
    check(LINALG[name], A)
    no_break()


def test_named_results_are_numpys():
    """NumPy 2 returns QRResult(Q, R), EighResult(...): the same types, holding arrays."""
    check(lambda x: np.linalg.qr(x * 2), A)
    check(lambda x: np.linalg.eigh(x.T @ x), A)
    check(lambda x: np.linalg.svd(x + 1, full_matrices=False), A)
    check(lambda x: np.histogram(x * 2, bins=3), A)


def test_count_nonzero():
    """A sum of x != 0 in intp; without an axis NumPy 1.x hands back a Python int."""
    for a in (A, I, np.zeros((0, 3))):
        npcompile.reset()
        check(lambda x: np.count_nonzero(x > 0, axis=0) + 1, a)
        no_break()
        check(lambda x: np.count_nonzero(x * 2, axis=(0, 1), keepdims=True), a)
        no_break()
        check(lambda x: np.count_nonzero(x - 1), a)
    check(lambda x: np.count_nonzero(x, axis=3), A)


def _counts_written(g, counts, fractions):
    for t in range(counts.size):
        g = g * 1.5 - 0.25
        counts[t] = np.count_nonzero(g > 0)     # a lazy Python int into an int array
        fractions[t] = np.count_nonzero(g > 1) / g.size
    return counts, fractions


def test_a_count_written_into_an_array():
    # the count is a Python int that has no .dtype: asking for it raised AttributeError
    # out of the user's program (forest_fire)
    for dt in (np.int64, np.int8, np.uint16):
        npcompile.reset()
        check(_counts_written, A.ravel(), np.zeros(9, dt), np.zeros(9))
        no_break()
    # a Python float into an integer array: NumPy converts it as a number (a break)
    check(_counts_written, A.ravel(), np.zeros(9, np.int64), np.zeros(9, np.int32))


def _count_as_operand(x):
    c = np.count_nonzero(x > 0)
    return (np.full(3, c), np.where(x > 0, c, x), np.clip(x, 0, c), np.maximum(x, c) + abs(c),
            np.array([c, c + 1]), np.array([[c], [2]], dtype=np.float32), x[c - 5], x[:c],
            float(c), np.arange(c))


def _count_into(x, out):
    out[0] = np.count_nonzero(x > 0)
    out[1:3] = np.count_nonzero(x)
    out[x > 0.5] = np.count_nonzero(x > 0.2)
    out += np.count_nonzero(x > 0.1)
    return out


def test_a_count_as_an_operand_of_the_rules():
    # np.count_nonzero's Python int where the rules expect a 0-d array: they read its
    # dtype and shape (lazy_array._asked_by_us) where they crashed (np.array([c, c + 1]),
    # x[c - 5] of NumPy 1.x), and its element read is NumPy's scalar, not a 0-d array
    x = np.linspace(-1, 1, 11)
    check(_count_as_operand, x)
    check(_count_into, x, np.zeros(11, np.int64))
    check(lambda v: v[np.count_nonzero(v > 0) - 5] * 2, x)


def test_edge_cases():
    empty = np.zeros((0, 3))
    check(lambda x: np.sort(x * 2, axis=0), empty)
    check(lambda x: np.median(x * 1, axis=0), empty)          # NaN, with a warning
    check(lambda x: np.percentile(x * 1, 50), make((7,), np.float64))
    check(lambda x: np.sort(x + 0), np.array([3.0, np.nan, -1.0, np.inf]))
    check(lambda x: np.median(x + 0), np.array([3.0, np.nan, -1.0]))
    check(lambda x: np.searchsorted(x, 2.5) + 1, np.arange(5.0))   # a 0-d v
    check(lambda x: np.trace(x * 1), make((3, 4, 2), np.float64))  # a 1-d result


def test_numpys_errors():
    a = make((4, 3), np.float64)
    check(lambda x: np.take(x * 2, [0, 12]), a)                  # IndexError
    check(lambda x: np.take(x * 2, [0, 1], axis=5), a)           # AxisError
    check(lambda x: np.einsum("ij,jk->ik", x, x) + 1, a)         # shapes do not match
    check(lambda x: np.linalg.cholesky(-np.eye(3) * x[0, 0] ** 2), a)   # LinAlgError
    check(lambda x: np.median(x * 1, axis=2), a)
    check(lambda x: np.sort(x + 1, axis=-3), a)


def test_what_stays_a_break():
    """Shapes that depend on the values, and calls with effects, are not declared."""
    a = make((8,), np.float64)
    # (np.unique's values alone are a lazy selection: test_unique_values.py)
    check(lambda x: np.unique(np.round(x), return_inverse=True)[1] * 2, a)
    assert any("unique" in b["reason"] for b in npcompile.report()["graph_breaks"])

    def into(x):
        out = np.empty_like(x)
        np.sort(x * 2, out=None)
        np.median(x.copy(), overwrite_input=True)
        return np.histogram(x * 1, bins="auto")[0]
    check(into, a)


def test_stacks_of_matrices_keep_their_leading_axes():
    """qr, svd, eigh and eigvalsh of a stack of matrices: the declared shapes (what
    .shape says while tracing) have the stack's axes too; they were dropped."""
    s = make((3, 4, 4), np.float64)
    s = s + s.transpose(0, 2, 1)
    for f in (lambda x: [m.shape for m in np.linalg.qr(x[:, :, :3] * 1)],
              lambda x: [m.shape for m in np.linalg.qr(x * 1, mode="complete")],
              lambda x: [m.shape for m in np.linalg.svd(x[:, :3] * 1)],
              lambda x: np.linalg.svd(x * 1, full_matrices=False)[0].sum(axis=0),
              lambda x: np.linalg.svd(x * 1, compute_uv=False).shape,
              lambda x: np.linalg.eigh(x * 1)[0].sum(axis=0),
              lambda x: np.linalg.eigvalsh(x * 1).shape):
        npcompile.reset()
        check(f, s)
        assert npcompile.report()["graph_breaks"] == []


def test_partition_and_argpartition():
    """NumPy's selection run as the step: the same order, whatever it is; kth checked
    against the real axis (the dtype probe's stand-ins are shorter)."""
    for f in (lambda x: np.partition(x * 2, 2) + 1,
              lambda x: np.argpartition(x * 1, [0, -1], axis=0) * 2,
              lambda x: np.partition(x + 1, 7, axis=None)[:8],
              lambda x: np.argpartition(-x, np.array([1, 3])) + 0):
        for a in (A, I):
            npcompile.reset()
            check(f, a)
            no_break()
    check(lambda x: np.partition(x * 2, 5), A)                       # out of bounds
    check(lambda x: np.argpartition(x * 2, -7, axis=0), A)
    check(lambda x: np.partition(x * 2, 1.5), A)                     # TypeError


def test_eigenvalues_of_complex_matrices():
    """A complex matrix's eigenvalues are complex: a step. A real one's are real or
    complex as its values come out: that stays NumPy's call (a graph break)."""
    z = (A[:5] + 1j * A[1:]).astype(np.complex128)
    for f in (lambda x: np.linalg.eigvals(x * 2) + 1,
              lambda x: [m * 1 for m in np.linalg.eig(x + 1)],
              lambda x: np.abs(np.linalg.eigvals(np.stack([x, x.T]) * 1))):
        npcompile.reset()
        check(f, z)
        assert npcompile.report()["graph_breaks"] == []
        compiled_without_fallback(kernels=False)    # complex math is NumPy's steps
    check(lambda x: np.linalg.eig(x * 1), z)                          # EigResult on NumPy 2
    check(lambda x: np.linalg.eigvals(x * 1j), A)                     # not square
    npcompile.reset()
    check(lambda x: np.linalg.eigvals(x[:5] * 2), A)
    assert any("depends on the values" in b["reason"]
               for b in npcompile.report()["graph_breaks"])


HISTOGRAM2D = {
    "bins_int": lambda x: [h * 1 for h in np.histogram2d(x[:, 0] * 2, x[:, 1], bins=4)],
    "bins_pair": lambda x: np.histogram2d(x[:, 0], x[:, 1] + 1, bins=[3, 5])[0] * 2,
    "bins_edges": lambda x: np.histogram2d(x[:, 0], x[:, 1], bins=[np.linspace(-30, 30, 4),
                                                                    [-30.0, 0.0, 30.0]])[0] + 1,
    "density_range": lambda x: np.histogram2d(x[:, 0], x[:, 1], bins=3, density=True,
                                              range=[[-10, 10], [-20, 20]])[0] * 2,
    "weights": lambda x: np.histogram2d(x[:, 0], x[:, 1], bins=2, weights=x[:, 2])[0] - 1,
}


@pytest.mark.parametrize("name", sorted(HISTOGRAM2D))
def test_histogram2d_in_the_graph(name):
    check(HISTOGRAM2D[name], A)
    no_break()


REDUCEAT = {
    "segment_sums": lambda x: np.add.reduceat(x * 2, [0, 2, 3], axis=0) + 1,
    "axis1": lambda x: np.maximum.reduceat(x + 1, np.array([0, 3]), axis=1) * 2,
    "traced_starts": lambda x: np.add.reduceat(x[:, 0] * 1, np.arange(0, 6, 2)) - 1,
    "decreasing": lambda x: np.multiply.reduceat(x[0] + 1, [3, 1, 4]) * 1,
    "dtype": lambda x: np.add.reduceat(x * 1, [0, 4], dtype=np.float32) + 1,
}


@pytest.mark.parametrize("name", sorted(REDUCEAT))
def test_reduceat_in_the_graph(name):
    for a in (A, I):
        check(REDUCEAT[name], a)
        no_break()


@pytest.mark.parametrize("fn", [lambda x: np.add.reduceat(x * 1, [0, 9]),
                                lambda x: (np.add.reduceat(x * 1, np.arange(8)), x)[1]])
def test_reduceat_out_of_range_is_numpys(fn):
    assert type(check(fn, A)).__name__ == "Raised"


def _write_through(subs):
    def f(x):
        A = np.outer(x * 1.0, x[:6] * 2.0)[:6]
        v = np.einsum(subs, A)
        v[...] = 7.0
        return A, v
    return f


@pytest.mark.parametrize("subs", ["ii->i", "ij->ji", "ij->ij"])
def test_einsum_that_sums_nothing_is_a_view_written_through(subs):
    """np.einsum of one operand summing nothing (a diagonal, a transpose) is a view in
    NumPy: writing into it writes the operand. Computed as a new array, the write was
    lost (a wrong A); it is a reported graph break, NumPy's own view."""
    check(_write_through(subs), make((8,), np.float64))
    assert any("sums nothing" in b["reason"] for b in npcompile.report()["graph_breaks"])


def update_then_solve(x, A, b):
    x[1:] -= x[:-1]         # written into the caller's x before the solve fails
    return np.linalg.solve(A, b) + x.sum()


def update_then_overflow(b, c):
    b[1:] -= b[:-1]
    c[c > 0] = -3           # NumPy 2: OverflowError (a uint8 cannot hold -3)
    return b


def pending_read_of_a_write(b, c):
    b[1:] -= b[:-1]
    t1 = np.minimum(7, b)       # reads the write; pending when the masked write raises
    c[c > 0] = -3               # NumPy 2: OverflowError
    b += np.sqrt(c)             # a float16 result, a break: the graph runs here
    return t1


@pytest.mark.parametrize("fn, args", [
    (update_then_solve, (np.array([5.0, -2.0, 4.0]), np.ones((2, 2)), np.ones(2))),
    (pending_read_of_a_write, (np.array([5, -2, 4], np.int8), np.array([1, 0, 2], np.uint8))),
    (update_then_overflow, (np.array([5, -2, 7], np.int8), np.array([1, 0, 2], np.uint8))),
])
def test_an_error_in_a_numpy_step_leaves_what_numpy_leaves(fn, args):
    """A NumPy step of a compiled graph that raises (a singular matrix) raises NumPy's
    error there: the in-place writes before it landed once, as in NumPy. The compiled
    run used to be done again on the reference path, and `x[1:] -= x[:-1]` landed
    twice (the fuzzer's seed 5896092); then a value computed before the error (t1) was
    computed again as the call ended, and wrote b a second time."""
    import copy
    eager_args, jit_args = copy.deepcopy(args), copy.deepcopy(args)
    try:
        fn(*eager_args)
        expected = None
    except Exception as e:   # noqa: BLE001 - NumPy's error is the answer
        expected = type(e)
    f = npcompile.jit(fn, choose=False)
    if expected is None:
        f(*jit_args)
    else:
        with pytest.raises(expected):
            f(*jit_args)
    for g, e in zip(jit_args, eager_args):
        np.testing.assert_array_equal(g, e)
