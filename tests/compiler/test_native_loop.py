"""Loop nests of scalar code compiled as one function (api/native_loop.py,
codegen/scalar_nest.py), against eager NumPy: values, dtypes and scalar types, in-place
arrays, the names the loop leaves bound, and NumPy's own errors (the nest stops, puts
the arrays back, and the Python loop raises). Each test checks the compiled nest ran,
or that it declined, with the report's words."""
import importlib.util
import math
import os
import sys

import numpy as np
import pytest

import npcompile
from npcompile.backends import cpu
from conftest import DEVICE, check, make, same
from test_trace_loops import lu_in_place

NATIVE = pytest.mark.skipif(not cpu.AVAILABLE or DEVICE == "cuda" or
                            os.environ.get("NPC_BACKEND") == "reference",
                            reason="compiled loop nests need the CPU backend")
pytestmark = NATIVE


def summaries():
    return [r["summary"] for r in npcompile.report()["loops"]]


def ran_native():
    return any("runs as one compiled function" in s for s in summaries())


def double_loop(A):
    n, m = A.shape
    C = np.empty_like(A)
    for i in range(n):
        for j in range(m):
            C[i, j] = A[i, j] * 2.0 + 1.0
    return C


def recurrence(x, a):
    y = np.empty_like(x)
    y[0] = x[0]
    for i in range(1, x.shape[0]):
        y[i] = a * y[i - 1] + (1.0 - a) * x[i]
    return y


def accumulate(A):
    s = 0.0                   # a Python float that A's elements make a NumPy float64
    k = 0
    for i in range(len(A)):
        if A[i] > 0 and i % 2 == 0:
            s += A[i]
            k += 1
        elif A[i] < -10:
            continue
    return s, k, i


def integer_ops(A, d):
    out = np.zeros_like(A)
    for i in range(A.shape[0]):
        out[i] = A[i] // d + A[i] % d - (-A[i]) ** 2
    return out


def math_calls(A):
    out = np.empty_like(A)
    for i in range(A.shape[0]):
        x = A[i]
        out[i] = math.sqrt(abs(x)) + np.exp(-x * x) + max(x, 0.5) + math.floor(x)
    return out


def swap_fib(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


def negative_index(A):
    B = np.zeros_like(A)
    for i in range(A.shape[0]):
        B[i] = A[i - 1] - A[-1]
    return B


def breaks_out(A, limit):
    total = 0.0
    for i in range(A.shape[0]):
        if total > limit:
            break
        total = total + A[i]
    return total, i


def int32_store(A, B):
    for i in range(A.shape[0]):
        B[i] = A[i] * 3
    return B


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int32])
def test_double_loop(dtype):
    check(double_loop, make((9, 7), dtype))
    assert ran_native()


def test_recurrence_and_strided_views():
    x = make((200,), np.float64)
    check(recurrence, x, 0.9)
    check(recurrence, make((400,), np.float64)[::2], 0.5)
    assert ran_native()


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
def test_accumulators_branches_and_the_names_left_bound(dtype):
    got = check(accumulate, make((50,), dtype))
    assert type(got[1]) is int and type(got[2]) is int
    assert ran_native()


@pytest.mark.parametrize("dtype", [np.int64, np.int32])
def test_integer_floor_division_modulo_and_power(dtype):
    check(integer_ops, make((40,), dtype), 7)
    check(integer_ops, make((40,), dtype), -3)
    assert ran_native()


def test_math_functions():
    check(math_calls, make((30,), np.float64), ulp=2)
    assert ran_native()


def test_python_ints_stay_python_ints():
    assert check(swap_fib, 50) == 12586269025
    assert ran_native()


def test_python_int_overflow_runs_python():
    """Fibonacci(200) outgrows int64: the nest stops and Python computes the big int."""
    assert check(swap_fib, 200) == swap_fib(200)


def test_negative_indices_wrap_as_in_numpy():
    check(negative_index, make((12,), np.float64))
    assert ran_native()


def test_break_and_the_loop_variable():
    check(breaks_out, make((30,), np.float64), 40.0)
    assert ran_native()


def test_int32_arrays():
    check(int32_store, make((20,), np.int32), np.zeros(20, np.int32))
    assert ran_native()


def out_of_bounds(A):
    B = np.zeros_like(A)
    for i in range(A.shape[0] + 1):
        B[i] = A[i] + 1.0        # the last i is past the end: IndexError, B half written
    return B


def test_index_error_is_numpys_and_nothing_is_left_half_done():
    A = make((10,), np.float64)
    check(out_of_bounds, A)


def divide(A, d):
    out = np.zeros_like(A)
    for i in range(A.shape[0]):
        out[i] = A[i] / d
    return out


@pytest.mark.parametrize("d", [0, 0.0, 2])
def test_division_by_zero_warns_or_raises_as_numpy(d):
    check(divide, make((5,), np.float64), d)
    check(divide, make((5,), np.int64), d)


def sqrt_of(A):
    out = np.zeros_like(A)
    for i in range(A.shape[0]):
        out[i] = math.sqrt(A[i])    # ValueError for a negative element
    return out


def test_math_domain_error_is_pythons():
    check(sqrt_of, np.array([4.0, 1.0, -1.0]))
    check(sqrt_of, np.array([4.0, 1.0, 9.0]))


def test_the_callers_array_written_in_place():
    def scale(A, f):
        for i in range(A.shape[0]):
            for j in range(A.shape[1]):
                A[i, j] *= f
    check(scale, make((4, 5), np.float64), 1.5)
    assert ran_native()


def test_types_it_does_not_take_run_python_and_say_why():
    check(double_loop, make((4, 3), np.float16))
    assert not ran_native()
    assert any("runs as Python" in s and "float16" in s for s in summaries())


def float32_steps(x, a):
    y = np.empty_like(x)
    y[0] = x[0]
    for i in range(1, x.shape[0]):   # float32 with Python floats: NumPy 2 keeps float32
        y[i] = a * y[i - 1] + (1.0 - a) * np.sqrt(np.abs(x[i])) / 3.0
    return y


def test_float32_arithmetic_and_functions():
    check(float32_steps, make((50,), np.float32), 0.75)
    check(float32_steps, make((50,), np.float32), np.float32(0.75))
    assert ran_native()


def test_a_cell_loop_nest():
    ns = {"np": np, "A": make((6, 5), np.float64)}
    src = ("total = 0.0\nfor i in range(A.shape[0]):\n    for j in range(A.shape[1]):\n"
           "        total += A[i, j] * A[i, j]\n")
    eager = {"np": np, "A": ns["A"].copy()}
    exec(src, eager)
    npcompile.run_cell(src, ns)
    assert ns["total"] == eager["total"] and type(ns["total"]) is type(eager["total"])
    assert ns["i"] == eager["i"] and ns["j"] == eager["j"]
    assert ran_native()


def test_off_switch(monkeypatch):
    monkeypatch.setenv("NPC_NATIVE_LOOPS", "0")
    check(swap_fib, 30)
    assert not ran_native()


def burgers(u, nt, c):
    for n in range(nt):
        un = u.copy()               # the lessons' idiom: last step's values, copied
        for i in range(1, u.shape[0]):
            u[i] = un[i] - un[i] * c * (un[i] - un[i - 1])
    return u


def test_a_time_loop_around_a_copy_and_a_sweep_is_one_function():
    u = np.ones(41)
    u[10:20] = 2.0
    check(burgers, u, 25, 0.1)
    assert ran_native()
    check(burgers, make((8, 5), np.float64)[:, 1], 5, 0.05)   # a strided column


def test_a_traced_scalar_and_a_traced_array_go_in_computed():
    def f(x):
        y = x * 2.0                 # pending in the trace when the nest starts
        s = np.sum(y)               # a NumPy scalar, pending too
        for i in range(y.shape[0]):
            y[i] = y[i] / s
        return y, s
    check(f, make((16,), np.float64))
    assert ran_native()


def escape_time(C, maxiter):
    """Per point, a scalar while loop with a data-dependent exit."""
    out = np.zeros(C.shape[0], np.int64)
    for k in range(C.shape[0]):
        x, y, n = 0.0, 0.0, 0
        while x * x + y * y <= 4.0 and n < maxiter:
            x, y = x * x - y * y + C[k, 0], 2.0 * x * y + C[k, 1]
            n += 1
        out[k] = n
    return out


def test_while_loops_and_tuple_updates():
    C = np.stack([np.linspace(-2, 0.5, 60), np.linspace(-1, 1, 60)[::-1]], axis=1)
    check(escape_time, C, 50)
    assert ran_native()


def ends_zero(u, steps):
    for t in range(steps):
        for i in range(1, u.shape[0] - 1):
            u[i] = 0.5 * (u[i - 1] + u[i + 1])
        u[0] = u[-1] = 0.0          # one value into two places
    return u


def test_chained_assignment():
    check(ends_zero, make((20,), np.float64), 6)
    assert ran_native()


# ----------------------------------------------------------------- one-dimensional slices

def forward_back(L, U, b):
    n = b.shape[0]
    y = b.copy()
    for j in range(n):              # column by column: a slice update per step
        y[j] /= L[j, j]
        y[j + 1:] -= y[j] * L[j + 1:, j]
    x = np.zeros_like(b)
    for i in range(n - 1, -1, -1):  # row by row: a dot product per step
        x[i] = (y[i] - np.dot(U[i, i + 1:], x[i + 1:])) / U[i, i] + 0 * (U[i, :i] @ x[:i])
    return x


def gram_schmidt_columns(A):
    m, n = A.shape
    Q = np.zeros((m, n))
    for k in range(n):
        Q[:, k] = A[:, k]
        for j in range(k):
            r = Q[:, j] @ A[:, k]
            Q[:, k] -= r * Q[:, j]
        Q[:, k] /= np.sqrt(np.sum(Q[:, k] * 1.0) * 0.0 + Q[:, k] @ Q[:, k])
    return Q


def shifted(x, steps):
    for t in range(steps):
        x[1:] += 0.5 * x[:-1] / (t + 1)   # overlapping: NumPy reads the old values
        x[:-1] = x[1:] - x[:-1]
    return x


def partial_sums(x):
    out = np.zeros_like(x)
    for i in range(x.shape[0]):
        out[i] = x[:i + 1].sum() + np.sum(x[i:]) * 0.5
    return out


def test_triangular_solves_with_dot_products():
    rng = np.random.default_rng(0)
    n = 30
    L = np.tril(rng.random((n, n))) + n * np.eye(n)
    U = np.triu(rng.random((n, n))) + n * np.eye(n)
    check(forward_back, L, U, rng.standard_normal(n))
    assert ran_native()


def test_column_updates():
    check(gram_schmidt_columns, make((12, 5), np.float64))
    assert ran_native()


def test_overlapping_slices_read_the_old_values():
    check(shifted, make((17,), np.float64), 4)
    assert ran_native()


def test_sums_of_slices():
    check(partial_sums, make((20,), np.float64))
    assert ran_native()


def test_slices_of_different_lengths_raise_numpys_error():
    def mismatch(x):
        for i in range(3):
            x[:4] = x[:5] * 2.0
        return x
    check(mismatch, make((8,), np.float64))


def test_a_slice_bound_to_a_name_is_a_view_whose_writes_are_the_arrays():
    def view(x):
        for i in range(3):
            v = x[1:]
            v[0] = i
            v[1:] += v[:-1]     # through the view, overlapping: NumPy's temporary
        return x
    check(view, make((5,), np.float64))
    assert ran_native()


def test_a_name_bound_to_another_array_runs_python():
    def alias(x, y):
        for i in range(3):
            v = y
            v[0] = i
        return x, y
    check(alias, make((5,), np.float64), make((5,), np.float64))
    assert not ran_native()


# ----------------------------------------------------------------- two-dimensional slices

def corpus(name):
    """The run() of a program of the benchmark corpus (bench/programs)."""
    return corpus_module(name).run


def corpus_module(name, folder="programs"):
    """A program of the benchmark corpus (bench/programs, or another set of the bench's
    such as bench/heldout): run() and make_inputs()."""
    bench = os.path.join(os.path.dirname(__file__), "..", "..", "bench")
    if bench not in sys.path:       # (what a program imports: bench/program_inputs.py)
        sys.path.append(bench)
    path = os.path.join(bench, folder, name + ".py")
    spec = importlib.util.spec_from_file_location(f"{folder}_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def block_shift(M, steps):
    for t in range(steps):
        M[1:, 1:] += M[:-1, :-1] * (0.5 / (t + 1))     # overlapping blocks
    return M


def spd(n, seed=0):
    G = np.random.default_rng(seed).standard_normal((n, n))
    return G @ G.T + n * np.eye(n)


def test_cholesky_with_a_matrix_vector_product():
    check(corpus("cholesky"), spd(24))
    assert ran_native()


def test_lu_with_outer_updates_in_place():
    check(lu_in_place, spd(20) + np.triu(np.ones((20, 20))))
    check(corpus("lu"), spd(20) + np.triu(np.ones((20, 20))))
    assert ran_native()


def test_modified_gram_schmidt():
    check(corpus("gram_schmidt"), make((15, 6), np.float64))
    assert ran_native()


def test_overlapping_blocks_read_the_old_values():
    check(block_shift, make((7, 6), np.float64), 3)
    assert ran_native()


def test_a_matrix_vector_product_of_mismatched_shapes_is_numpys_error():
    def bad(A, x):
        for i in range(2):
            x[:3] = A[:3, :4] @ x[:3]
        return x
    check(bad, make((5, 5), np.float64), make((5,), np.float64))


def test_int32_scalars_promote_as_the_running_numpy_does():
    def scaled(A):
        last = A[0]
        for i in range(A.shape[0]):
            last = A[i] * 3 + 1      # int64 under NumPy 1.x, int32 under 2.x
        return last
    got = check(scaled, make((9,), np.int32))
    assert got.dtype == (np.int64 if np.__version__.startswith("1.") else np.int32)
    assert ran_native()


def test_a_failure_of_npcompile_itself_runs_the_users_loop(monkeypatch):
    """Past the kernel, an internal error puts the arrays back and runs Python: the
    values are NumPy's and the report says what failed."""
    from npcompile.codegen import scalar_nest

    def broken(self, slots):
        raise RuntimeError("unpack broke")
    monkeypatch.setattr(scalar_nest.Nest, "unpack", broken)
    check(int32_store, make((20,), np.int32), np.zeros(20, np.int32))
    assert any("unpack broke" in f["reason"] for f in npcompile.report()["fallbacks"])


def float_floor_and_modulo(A, d):
    out = np.zeros_like(A)
    q = np.zeros_like(A)
    for i in range(A.shape[0]):
        out[i] = A[i] % d
        q[i] = A[i] // d + float(i) % 2.5 - (-7.0) // 2.0
    return out, q


@pytest.mark.parametrize("d", [2.0, -2.0, 0.75])
def test_float_floor_division_and_modulo_keep_numpys_signs(d):
    A = np.array([-3.5, -0.0, 0.0, 2.25, 7.0, -7.0, 1e300, -1e-300])
    got = check(float_floor_and_modulo, A, d)
    exp = float_floor_and_modulo(A, d)
    for g, e in zip(got, exp):     # -0.0 and 0.0 apart, which == does not tell
        assert np.array_equal(np.signbit(g), np.signbit(e))
    assert ran_native()


def sir(beta, gamma, dt, steps, out):
    """An epidemic model stepped in Python floats, its state stored a row at a time."""
    S, I, R = 0.99, 0.01, 0.0
    for t in range(steps):
        dS = -beta * S * I
        dI = beta * S * I - gamma * I
        S += dt * dS
        I += dt * dI
        R += dt * gamma * I
        out[t] = S, I, R
    return out


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
def test_a_row_of_numbers_stored_at_once(dtype):
    check(sir, 0.3, 0.1, 0.5, 40, np.zeros((40, 3), dtype))
    assert ran_native(), summaries()


def test_a_row_of_another_length_raises_numpys_error():
    check(sir, 0.3, 0.1, 0.5, 40, np.zeros((40, 4)))
    check(sir, 0.3, 0.1, 0.5, 40, np.zeros((40, 2)))
    check(sir, 0.3, 0.1, 0.5, 50, np.zeros((40, 3)))    # t out of bounds: IndexError


def test_a_row_into_an_array_of_other_dimensions_runs_python():
    check(sir, 0.3, 0.1, 0.5, 4, np.zeros((4, 2, 3)))
    assert not ran_native()


def knapsack(w, v, cap):
    """0/1 knapsack by rows: each item's slice bound is read from the data."""
    best = np.zeros(cap + 1)
    for i in range(len(w)):
        wi = w[i]
        best[wi:] = np.maximum(best[wi:], best[:-wi] + v[i])
    return best


def test_slices_bounded_by_the_data_and_elementwise_extrema():
    rng = np.random.default_rng(8)
    check(knapsack, rng.integers(1, 30, 40), rng.integers(1, 100, 40), 200)
    assert ran_native(), summaries()


def clipped(u, lo, shifts):
    for t in range(len(shifts)):
        k = shifts[t]
        u[k:] = np.minimum(u[k:] + u[:-k] * 0.5, lo)
    return u


def test_minimum_of_slices_keeps_numpys_nan():
    u = make((30,), np.float64)
    u[7] = np.nan
    shifts = np.array([1, 3, 2, 5, 1, 4, 2, 2, 1])
    check(clipped, u, 20.0, shifts)
    assert ran_native(), summaries()
    check(clipped, make((30,), np.float64), np.nan, shifts)


def forward_solve_checked(L, b, x):
    """Forward substitution with the guard scientists write: a raise inside the nest."""
    n = L.shape[0]
    for i in range(n):
        piv = L[i, i]
        if piv == 0.0:
            raise ZeroDivisionError("singular triangular matrix")
        x[i] = (b[i] - L[i, :i] @ x[:i]) / piv
    return x


def test_a_raise_guard_stops_the_nest_and_python_raises_it():
    L = np.tril(make((12, 12), np.float64)) + 4 * np.eye(12)
    b = make((12,), np.float64, seed=3)
    check(forward_solve_checked, L, b, np.zeros(12))
    assert ran_native(), summaries()
    # singular: the user's exception, raised by the Python loop after the nest stopped,
    # with the caller's x holding what the Python loop wrote up to there
    L[7, 7] = 0.0
    npcompile.reset()
    x_eager, x_jit = np.zeros(12), np.zeros(12)
    with pytest.raises(ZeroDivisionError, match="singular"):
        forward_solve_checked(L, b, x_eager)
    with pytest.raises(ZeroDivisionError, match="singular"):
        npcompile.jit(forward_solve_checked)(L, b, x_jit)
    same(x_jit, x_eager)      # (dot products add in order: BLAS's last bits may differ)


def squares(x):
    out = np.zeros(x.shape[0])
    for i in range(1, x.shape[0]):
        out[i] = np.sum(x[:i] ** 2) + np.sum((x[:i] - 1.0) ** 2)
    return out


def test_a_slice_squared_is_numpys_square():
    check(squares, make((40,), np.float64))
    assert ran_native(), summaries()


def extremes(a, b):
    out = np.zeros(3)
    for k in range(3):
        out[k] = np.max(np.abs(a - b)) + a[k:].min() - np.amin(-np.fabs(b[:k + 1])) + \
            abs(a - 2.0 * b).max()
    return out


@pytest.mark.parametrize("nan_at", [None, 0, 4])
def test_max_and_min_of_slice_expressions_propagate_nan(nan_at):
    a, b = make((6,), np.float64), make((6,), np.float64, seed=2)
    if nan_at is not None:
        a[nan_at] = np.nan
    check(extremes, a, b)
    assert ran_native(), summaries()


def max_of_empty(a, n):
    s = 0.0
    for k in range(n):
        s += a[k:k].max()       # empty: NumPy's ValueError
    return s


def test_max_of_nothing_is_numpys_error():
    check(max_of_empty, np.ones(4), 2)


def broadcast_whole(a, b):
    s = 0.0
    for k in range(2):
        s += np.abs(a - b).max()    # (3, 4) against (4,): NumPy broadcasts
    return s


def test_whole_arrays_of_other_shapes_run_as_python():
    check(broadcast_whole, make((3, 4), np.float64), make((4,), np.float64))


def _whole_in_scalar_places(a, n):
    s = 0.0
    for i in range(n):
        if a > 0:               # an array's truth: NumPy's (ValueError past one element)
            s += 1.0
        if not a:
            s -= 2.0
        s += float(a) + (1.0 if a else 2.0)
    return s


def _whole_in_functions(a, n):
    t = 0.0
    for i in range(n):
        t = t + min(a) + np.sqrt(a).max() + (a if i > 0 else a).max() + abs(a).sum()
    return t


@pytest.mark.parametrize("fn,a", [(_whole_in_scalar_places, np.ones(1)),
                                  (_whole_in_scalar_places, np.ones(3)),
                                  (_whole_in_functions, np.arange(1.0, 5.0))])
def test_whole_arrays_where_a_number_is_needed_run_as_python(fn, a):
    """Refused while the nest is typed (the Python loop runs), never C++ that fails."""
    check(fn, a, 3)
    assert not any("could not be compiled" in f["reason"]
                   for f in npcompile.report()["fallbacks"])


def row_elimination(A, b):
    A, b = A.copy(), b.copy()
    n = len(b)
    for i in range(n):
        for j in range(i + 1, n):
            f = A[j, i] / A[i, i]
            A[j] -= f * A[i]          # rows, as NumPy reads A[j]: A[j, :]
            b[j] -= f * b[i]
    x = np.zeros(n)
    for i in range(n - 1, -1, -1):
        x[i] = (b[i] - A[i] @ x) / A[i, i]      # a whole array as an operand of @
    return x, A


def snapshots(u, k, r, inner):
    S = np.empty((k, u.size))
    for p in range(k):
        for s in range(inner):
            u[1:-1] = u[1:-1] + r * (u[2:] - 2 * u[1:-1] + u[:-2])
        S[p] = u                      # a row of S stored whole
    return S, u


def rows_swapped(A):
    A = A.copy()
    for i in range(len(A) - 1):
        A[i], A[i + 1] = A[i + 1], A[i]     # views: both rows end equal, as in NumPy
    return A


def row_broadcast(A, v):
    for i in range(A.shape[0]):
        A[i] = v
    return A


def test_rows_read_and_written_whole_run_in_the_nest():
    """`A[j] -= f * A[i]` and `S[p] = u` of arrays with more dimensions than indices are
    rows (A[j, :]) in the nest, as in NumPy: Gaussian elimination by rows and a time
    loop's snapshots ran as Python (`A has 2 dimensions and is indexed by 1`)."""
    A = make((12, 12), np.float64, seed=3) + 200 * np.eye(12)
    check(row_elimination, A, np.arange(12.0), ulp=8)
    assert sum("runs as one compiled function" in s for s in summaries()) >= 2
    npcompile.reset()
    check(snapshots, np.sin(np.linspace(0, 3, 40)), 10, 0.2, 20)
    assert ran_native()


def test_a_tuple_assignment_of_rows_is_numpys_view_swap():
    check(rows_swapped, np.arange(12.0).reshape(4, 3))
    assert any("rows or slices in a tuple assignment" in s for s in summaries())


@pytest.mark.parametrize("v", [np.array([1.0, 2.0, 3.0]), np.array([5.0]), np.array([1.0, 2.0])])
def test_a_row_store_broadcasts_or_raises_as_numpy(v):
    check(row_broadcast, np.arange(12.0).reshape(4, 3), v)


def upwind(u, nt, c):
    for n in range(nt):
        un = u.copy()
        u[1:] = un[1:] - c * (un[1:] - un[:-1])
    return u


@pytest.mark.parametrize("n,how", [(41, "runs as one compiled function"),
                                   (20000, "one compiled body")])
def test_a_slice_time_loop_runs_as_the_nest_on_small_arrays_else_as_the_body(n, how):
    """A time loop of slice statements is both a body compiled once and a loop nest:
    the nest on small arrays (a 41-point lesson grid: 3.7x faster than the body), the
    body on large ones (its fused kernels on every core: 1.6x faster at 10,000)."""
    check(upwind, np.sin(np.linspace(0, 3, n)), 30, 0.4)
    assert any(how in s for s in summaries()), summaries()


def _rows_matmul(A):
    C = np.zeros_like(A)
    for i in range(A.shape[0]):
        C[i] = A[i] @ A                  # a row times a whole matrix
    return C


def _rows_reduced(A):
    s = 0.0
    for i in range(A.shape[0]):
        if A[i].max() > 0.5:
            s += A[i].sum() + np.linalg.norm(A[i]) + np.dot(A[i], A[0])
    return s


def _rows_cycled(A, B):
    for i in range(A.shape[0]):
        A[i, :] = B[i % B.shape[0]]
    return A


def _rows_pivoted(A):
    for k in range(A.shape[0]):
        p = k + np.argmax(np.abs(A[k:, k]))
        if p != k:
            tmp = A[k].copy()
            A[k] = A[p]
            A[p] = tmp
        for i in range(k + 1, A.shape[0]):
            A[i] -= A[i, k] / A[k, k] * A[k]
    return A


def _rows_normalized(A):
    for i in range(A.shape[0]):
        A[i] = np.maximum(A[i], 0.0)
        A[i] = A[i] / (A[i].sum() + 1.0)
    return A


@pytest.mark.parametrize("fn,args", [
    (_rows_matmul, (make((6, 6), np.float64, seed=1),)),
    (_rows_reduced, (make((6, 6), np.float64, seed=2),)),
    (_rows_cycled, (make((6, 4), np.float64, seed=3), make((3, 4), np.float64, seed=4))),
    (_rows_pivoted, (make((6, 6), np.float64, seed=5) + 100 * np.eye(6),)),
    (_rows_normalized, (make((5, 7), np.float64, seed=6),))])
def test_row_idioms_in_loop_nests(fn, args):
    check(fn, *args, ulp=8)
    assert ran_native(), summaries()


def _fpu_like(x, v, n):
    for t in range(n):
        for i in range(1, len(x) - 1):
            v[i] += 0.01 * (x[i - 1] - 2 * x[i] + x[i + 1])
        x += 0.1 * v                     # a whole array updated in place
    return x, v


def _decay(x, n):
    s = 0.0
    for t in range(n):
        x *= 0.99
        s += x[0]                         # a number stays a number (handed back)
    return x, s


def _through_an_alias(x, n):
    y = x
    for t in range(n):
        y += 1.0                          # y is x: the caller's array changes
        y[1] = 5.0
    return x, y


@pytest.mark.parametrize("fn,args", [
    (_fpu_like, (np.sin(np.linspace(0, 3, 30)), np.zeros(30), 12)),
    (_decay, (np.arange(5.0), 10)),
    (_through_an_alias, (np.arange(5.0), 10))])
def test_an_array_updated_in_place_by_op_assign_runs_in_the_nest(fn, args):
    """`x += dt * v` of an array updates it in place, as in NumPy (x[:] += ...): the
    nest takes it (the whole loop ran as Python, unrolled: `x is an array rebound`)."""
    check(fn, *args)
    assert ran_native(), summaries()


def _shift_3d(T, n):
    for t in range(n):
        T[:, :, 1:] = T[:, :, :-1] + 1.0     # overlapping: through a temporary
    return T


def _rows_of_4d(A, n):
    for i in range(1, n):
        A[i, :, :, 1:] = A[i, :, :, :-1] * 2.0
    return A


def _batched_matmul(T, x):
    y = np.zeros((T.shape[0], T.shape[1]))
    for i in range(T.shape[0]):
        y[i] = T[i] @ x                       # 2-d @ 1-d: the nest takes it
    z = np.zeros(T.shape[:2] + (1,))
    for i in range(1):
        z[:, :, 0] = np.zeros(T.shape[:2]) + (T @ x)[:, :]   # 3-d @: NumPy's, as written
    return y, z


@pytest.mark.parametrize("fn,args", [
    (_shift_3d, (np.arange(24.0).reshape(2, 3, 4), 3)),
    (_rows_of_4d, (np.arange(48.0).reshape(2, 2, 3, 4), 2)),
    (_batched_matmul, (np.arange(24.0).reshape(2, 3, 4), np.arange(4.0)))])
def test_slices_of_three_or_more_dimensions_are_numpys(fn, args):
    """An overlapping store into a slice of three dimensions goes through a temporary
    indexed in all of them (it was indexed by its first alone: a wrong result)."""
    check(fn, *args)


def smooth_into(dst, src, steps):
    for t in range(steps):
        dst[1:-1] = 0.5 * (src[:-2] + src[2:]) + 0.01 * t
    return dst


def test_arguments_that_share_memory_decline_the_nest():
    """The nest tests overlap between views of one name only: two names there are two
    arrays. Arguments that share memory, one of them written, are declined (the loop
    runs as its body instead); distinct ones run compiled, with no temporary."""
    base, eager = np.linspace(0.0, 1.0, 40), np.linspace(0.0, 1.0, 40)
    smooth_into(eager[2:], eager[:-2], 30)
    npcompile.jit(smooth_into)(base[2:], base[:-2], 30)
    np.testing.assert_array_equal(base, eager)
    assert any("share memory" in s for s in summaries()), summaries()
    npcompile.reset()
    check(smooth_into, make((40,), np.float64), make((40,), np.float64), 30)
    assert ran_native()
    nests = [k["source"] for k in npcompile.report()["kernel_sources"]
             if k["name"].startswith("npc_nest")]
    assert nests and all("malloc((" not in src for src in nests)   # no temporary


def logistic_lyapunov(r, iters, last):
    """The logistic map's attractor and Lyapunov exponent: np.log of a whole array in
    the loop, under an `if` on the loop's numbers."""
    state = np.full(r.shape, 0.25)
    exponent = np.zeros(r.shape)
    kept = np.zeros((last, len(r)))
    start = iters - last
    for step in range(iters):
        state = r * state * (1.0 - state)
        if step >= start:
            exponent = exponent + np.log(np.abs(r * (1.0 - 2.0 * state)))
            kept[step - start] = state
    return exponent / last, kept


def damped_slices(a, steps):
    out = np.zeros_like(a)
    for t in range(steps):
        out[1:] = out[1:] + np.sqrt(np.abs(a[:-1])) * np.exp(-a[1:] * a[1:]) + \
            np.tanh(out[:-1]) - np.cos(a[1:]) * np.log1p(np.abs(out[1:]))
    return out


def test_numpy_functions_of_whole_arrays_and_slices():
    """np.log, np.sqrt, np.exp, np.tanh, np.cos, np.log1p of slice expressions: element
    by element in the nest, each the libm function the scalar code calls."""
    check(logistic_lyapunov, np.linspace(2.6, 3.4, 64), 60, 20, ulp=16)   # a sum of logs
    assert ran_native()
    npcompile.reset()
    check(damped_slices, make((40,), np.float64), 25, ulp=8)
    assert ran_native()


def test_math_functions_of_arrays_are_not_elementwise():
    """math.sqrt of an array raises TypeError in Python: the loop runs as written."""
    def math_of_array(a, steps):
        for t in range(steps):
            a[1:] = math.sqrt(a[:-1])
        return a
    check(math_of_array, make((10,), np.float64), 9)
