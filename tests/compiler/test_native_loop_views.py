"""Compiled loop nests (codegen/scalar_nest*.py) of linear algebra with loops over k and
of row sweeps with tests on the data: names bound to slices (views whose writes are the
array's), new arrays copied from them, float64 copies of other dtypes (.astype), tests
of slices reduced at once (any/all/count_nonzero), np.where, argmax/argmin, np.sign and
np.copysign. Each against eager NumPy (values, dtypes, scalar types, in-place arrays),
and each checks that the nest ran compiled."""
import numpy as np
import pytest

import npcompile
from conftest import check, make
from test_native_loop import NATIVE, corpus, corpus_module, ran_native, summaries

pytestmark = NATIVE


def householder(A):
    m, n = A.shape
    R = A.copy()
    Q = np.eye(m)
    for k in range(n):
        x = R[k:, k]                 # a view of R
        v = x.copy()                 # a new array
        v[0] += np.copysign(np.linalg.norm(x), x[0])
        v /= np.linalg.norm(v)
        R[k:, k:] -= 2.0 * np.outer(v, v @ R[k:, k:])
        Q[:, k:] -= 2.0 * np.outer(Q[:, k:] @ v, v)
    return Q, R


@pytest.mark.parametrize("shape", [(12, 9), (30, 20)])
def test_householder_qr_with_views_and_copies(shape):
    check(householder, make(shape, np.float64, 3))
    assert ran_native()


def test_the_corpus_householder_programs():
    check(corpus("householder_qr"), make((24, 16), np.float64, 4))
    assert ran_native()


def product_into_its_own_operand(R, u):
    for k in range(R.shape[1]):
        v = R[k:, k] / np.linalg.norm(R[k:, k])
        # each element of the product reads a column of R[k:, k:], which this store
        # writes: NumPy computes the right side first
        R[k:, k:] -= 2.0 * np.outer(v, v @ R[k:, k:])
        R[k:, k] += u[k:]
    return R


def test_a_store_into_a_slice_a_product_reads_goes_through_a_temporary():
    # (a store into the view a matrix product reads was taken for element by element:
    # wrong numbers before this test)
    check(product_into_its_own_operand, make((24, 16), np.float64, 5),
          make((24,), np.float64, 6))
    assert ran_native()


def view_sees_writes(A):
    s = 0.0
    for k in range(A.shape[1]):
        x = A[:, k]
        A[0, k] = 100.0 + k          # written through A: the view x sees it
        x[1] = -x[0]                  # written through x: A sees it
        s += x[0] + A[1, k]
    return s, A


def test_a_view_and_its_array_see_each_others_writes():
    check(view_sees_writes, make((4, 9), np.float64, 7))
    assert ran_native()


# a Welford running mean skipping rows with NaNs (`if np.isnan(row).any(): continue`),
# rows of any dtype as float64 (`X[i].astype(np.float64)`)
welford = corpus_module("welford_zscore", "heldout").run


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int16, np.uint8])
def test_rows_of_any_dtype_as_float64_with_a_skip_test(dtype):
    X = make((60, 5), dtype, 8)
    if X.dtype.kind == "f":
        X[[3, 17, 40], [1, 0, 4]] = np.nan
    check(welford, X)
    assert ran_native()


def reduced_tests(x, t):
    c = 0
    s = 0.0
    for i in range(x.shape[0]):
        r = x[i]
        c += np.count_nonzero((r > t) & ~np.isnan(r))
        if (r[1:] >= r[:-1]).all():
            c += 1000
        if np.any(np.isinf(r) | (r == t)) or not np.isfinite(r).all():
            c += 100000
        p = np.argmax(np.abs(r))
        q = r.argmin()
        s = s + float(p * 10 + q) + float(np.sign(r[p])) + float(np.where(r > 0, r, 0.0).sum())
    return c, s


def test_tests_of_slices_reduced_at_once_with_nans_infs_and_ties():
    x = make((40, 6), np.float64, 9)
    x[7] = np.sort(x[7])
    x[3, 2] = np.nan            # argmax of |r| is the NaN: NumPy's first NaN
    x[5, [1, 4]] = np.nan
    x[9, 0] = -np.inf
    x[11] = [2.0, -3.0, 3.0, -3.0, 1.0, 0.0]     # ties: the first index
    check(reduced_tests, x, 0.1)
    check(reduced_tests, x, 2.0)
    assert ran_native()
    assert not any("runs as Python" in s for s in summaries())


def signs(x):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = np.sign(x[i])
        out[i, 0] += np.sign(x[i, 0]) + np.copysign(2.0, x[i, 0])
        out[i, 1:] += np.sign(x[i, 1:] - x[i, :-1])
    return out


def test_sign_and_copysign_of_numbers_and_slices():
    x = make((12, 5), np.float64, 10)
    x[2, 0] = -0.0
    x[5, 0] = np.nan
    x[2, 1] = -0.0
    x[3, 3] = 0.0
    x[4, 2] = np.nan
    check(signs, x)
    assert ran_native()


def argmax_of_an_empty_slice(x):
    total = 0
    for k in range(x.shape[0] + 1):
        total += np.argmax(x[k:])
    return total


def test_argmax_of_an_empty_slice_is_numpys_error():
    check(argmax_of_an_empty_slice, make((9,), np.float64, 11))


def where_rows(A, lo):
    total = 0.0
    for i in range(A.shape[0]):
        A[i] = np.where((A[i] < lo) | np.isnan(A[i]), lo, A[i])
        total += A[i].max()
    return total, A


def test_where_of_a_test_and_slices_written_back():
    A = make((10, 7), np.float64, 12)
    A[2, 3] = np.nan
    check(where_rows, A, -1.5)
    assert ran_native()


def mask_bound_to_a_name(x):
    c = 0
    for i in range(x.shape[0]):
        m = x[i] > 0            # a boolean array of its own: the Python loop
        c += int(m.sum())
    return c


def test_a_test_bound_to_a_name_runs_python():
    check(mask_bound_to_a_name, make((10, 4), np.float64, 13))
    assert not ran_native()


def test_lu_with_row_swaps_and_new_axes():
    # A[[k, p]] = A[[p, k]], perm[[k, p]] = perm[[p, k]] and
    # A[k + 1:, k, None] * A[None, k, k + 1:]
    check(corpus("lu_pivot"), make((20, 20), np.float64, 14))
    assert ran_native()


def swaps(A, perm, idx):
    for k in range(A.shape[0]):
        p = idx[k]
        A[[k, p]] = A[[p, k]]               # p may be k, or count from the end
        perm[[k, p], :] = perm[[p, k], :]
    return A, perm


@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.uint8, bool])
def test_row_swaps_of_any_dtype_and_rank(dtype):
    A = make((9, 3, 2), dtype, 15)
    perm = np.arange(18).reshape(9, 2)
    idx = np.array([3, 1, -1, 3, 0, 8, -9, 2, 7])
    check(swaps, A, perm, idx)
    assert ran_native()


def test_a_row_swap_out_of_bounds_is_numpys_index_error():
    check(swaps, make((9, 3), np.float64, 16), np.arange(18).reshape(9, 2),
          np.array([3, 1, 9, 3, 0, 8, 0, 2, 7]))


def differences(x, y, out):
    for i in range(out.shape[0]):
        out[i] = x[i, :, None] - y[None, i, :]      # (n, 1) - (1, m): broadcast
        out[i, 0] += (x[i, None, :] * y[i, :, None]).max()
    return out


def test_new_axes_broadcast_against_the_other_operand():
    x, y = make((8, 5), np.float64, 17), make((8, 5), np.float64, 18)
    check(differences, x, y, np.zeros((8, 5, 5)))
    assert ran_native()


# Jacobi's eigenvalue method: a while loop (a break inside an `if`) of np.diag, np.sum of
# a matrix, argmax of a matrix, divmod, column copies and a Python float reset (`t = 1.0`)
# read through np.sqrt
jacobi_rotations = corpus_module("jacobi_eigenvalue", "heldout2").run


def test_a_while_loop_of_whole_matrix_work_with_a_break_is_a_nest():
    B = make((9, 9), np.float64, 19)
    check(jacobi_rotations, B + B.T)
    assert ran_native()


def norms_and_sums(A):
    out = np.zeros(A.shape[0])
    for k in range(A.shape[0]):
        B = A[k:, k:]
        q, r = divmod(k * 7 - 3, 4)
        out[k] = np.linalg.norm(B) + np.sum(B * 2.0) + B.sum() + q - r + np.diag(B).sum()
    return out


def test_norms_and_sums_of_matrices_and_divmod():
    check(norms_and_sums, make((12, 10), np.float64, 20))
    assert ran_native()


def made_in_the_loop(x, n):
    total = 0.0
    for k in range(n):
        u = np.zeros(x.shape[0])
        M = np.ones((3, x.shape[0]))
        w = np.full(x.shape[0], 0.5)
        z = np.zeros_like(x)
        e = np.empty_like(x)
        e[:] = x * k
        u[1:] = x[:-1] + w[1:]
        z[k % x.shape[0]] = 1.0
        total += u.mean() + np.mean(M * 2.0) + z.sum() + np.mean(e) + np.mean(x[: k % 3 + 1])
    return total


def test_new_arrays_made_in_a_loop_and_means():
    check(made_in_the_loop, make((7,), np.float64, 21), 12)
    assert ran_native()


def power_steps(C, v, steps):
    for _ in range(steps):
        w = C @ v
        w /= np.linalg.norm(w)          # in place, right after its own new array
        if w[np.argmax(np.abs(w))] < 0:
            w = -w
        v = w                           # two names of one array in NumPy
    return v, w


def test_an_alias_taken_as_a_copy_where_nothing_tells_them_apart():
    B = make((6, 6), np.float64, 22)
    check(power_steps, B @ B.T, np.ones(6) / np.sqrt(6), 15)
    assert ran_native()


def alias_then_changed(x, steps):
    y = x + 1.0
    total = 0.0
    for _ in range(steps):
        y = y * 0.5
        z = y
        z += 1.0                        # changes y too, as NumPy's alias does
        total += y.sum()
    return total, y


def test_an_alias_changed_in_place_runs_python():
    check(alias_then_changed, make((5,), np.float64, 23), 10)
    assert not ran_native()


def two_kinds_of_sums(x, t):
    s = 0.0
    for k in range(x.shape[0]):
        if x[k] > 100.0:
            s += x[k]           # a NumPy float64 from here on, where it runs
        else:
            s += t              # a Python float stays one
    return s


def test_a_number_numpy_or_python_as_its_branches_run_is_pythons():
    # (no element passes 100: Python's loop leaves a float; the nest handed back a
    # NumPy float64)
    check(two_kinds_of_sums, make((12,), np.float64, 24), 0.5)
    x = make((12,), np.float64, 24)
    x[3] = 500.0
    check(two_kinds_of_sums, x, 0.5)


def rows_then_a_warning(A, w):
    s = 0.0
    for k in range(A.shape[0]):
        row = A[k]                 # A[k, :], a view: row -= is a store into A
        row -= 0.5 * w
        s += row.sum() / (k - 4)   # 0/0 at k = 4 with a zero row: NumPy warns, the nest stops
    return A, s


def test_a_nest_stopped_after_writes_through_a_row_view_puts_them_back():
    A = make((8, 3), np.float64, 25)
    A[4] = 0.5 * np.arange(3.0)      # row 4 becomes zero: 0 / 0
    check(rows_then_a_warning, A, np.arange(3.0))


def test_a_small_conjugate_gradient_is_a_nest_close_to_numpy():
    """A while loop of products on a small matrix runs as the nest; its dot products
    add in sixteen partial sums where BLAS has its own order, and 30 iterations of CG
    carry that difference in the last bits (within 1e-10 of NumPy's)."""
    solve = corpus("conjugate_gradient")
    rng = np.random.default_rng(26)
    M = rng.standard_normal((30, 30))
    A, b = M @ M.T + 30 * np.eye(30), rng.standard_normal(30)
    got = npcompile.jit(solve, choose=False)(A, b, 1e-10, 200)
    np.testing.assert_allclose(got, solve(A, b, 1e-10, 200), rtol=1e-10, atol=1e-12)
    assert ran_native()


def residual_history(A, b, steps):
    x = np.zeros_like(b)
    r = b.copy()
    history = []
    counts = []
    ratios = []
    for k in range(steps):
        Ar = A @ r
        alpha = np.dot(r, r) / np.dot(r, Ar)
        x += alpha * r
        r -= alpha * Ar
        history.append(np.linalg.norm(r))      # np.float64
        counts.append(k * 2)                   # Python ints
        ratios.append(float(k) / (k - 20))     # Python floats; 0/0 at k = 20 stops the nest
    return x, history, counts, ratios


def test_lists_appended_to_hold_pythons_numbers():
    rng = np.random.default_rng(27)
    M = rng.standard_normal((12, 12))
    A, b = M @ M.T + 12 * np.eye(12), rng.standard_normal(12)
    got = check(residual_history, A, b, 12)
    assert type(got[1][0]) is np.float64 and type(got[2][0]) is int and \
        type(got[3][0]) is float
    assert ran_native()
    # at k = 20 the nest stops (ZeroDivisionError): nothing it appended stays, and the
    # Python loop appends and raises as it always does
    check(residual_history, A, b, 24)


def list_read_too(x, out):
    for k in range(x.shape[0]):
        out.append(x[k] * 2.0)
        if len(out) > 3:
            out.append(0.0)
    return out


def test_a_list_read_in_the_loop_runs_python():
    check(list_read_too, make((9,), np.float64, 28), [1.0])
    assert not ran_native()


def online_perceptron(X, y, lr, epochs):
    w = np.zeros(X.shape[1])
    errors = []
    for epoch in range(epochs):
        err = 0
        for xi, target in zip(X, y):        # xi: a row of X, a view
            update = lr * (target - np.sign(xi @ w))
            w += update * xi
            err += int(update != 0.0)
        errors.append(err)
    return w, errors


def test_an_online_perceptron_over_the_rows_of_a_matrix():
    rng = np.random.default_rng(29)
    X = rng.standard_normal((40, 5))
    y = np.sign(X @ np.arange(5.0) - 1.0)
    got = check(online_perceptron, X, y, 0.1, 6)
    assert type(got[1][0]) is int
    assert ran_native()


def rows_written(X, scale):
    total = 0.0
    for rep in range(2):
        for row in X:
            row *= scale                    # into X
            total += row.sum()
            if total > 1e300:
                break
    return total, X


def test_rows_of_an_element_loop_are_views_written_through():
    check(rows_written, make((9, 4), np.float64, 30), 0.5)
    assert ran_native()


def rows_at_the_top(X, scale):
    total = 0.0
    for row in X:                           # (the loop's own reads of row are no output)
        row *= scale
        total += row.sum()
    return total, X


def rows_and_the_last_row(X, scale):
    total = 0.0
    for row in X:
        row *= scale
        total += row.sum()
    return total, row, X                    # the last row, a view, read after the loop


def test_a_top_level_loop_over_rows_is_a_nest_unless_its_row_is_read_after():
    check(rows_at_the_top, make((9, 4), np.float64, 31), 0.5)
    assert ran_native()
    npcompile.reset()
    check(rows_and_the_last_row, make((9, 4), np.float64, 31), 0.5)
    assert not ran_native()
