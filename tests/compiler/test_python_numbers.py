"""Python numbers the graph computes (trace/python_numbers.py): np.count_nonzero without
an axis returns a Python int under NumPy 1.x, and the program goes on with it. It used
to be read at once (a graph break per call, a Monte Carlo pi never compiled whole).
Python's operators on it keep Python's rules (types, no overflow, ZeroDivisionError),
NumPy's calls on it NumPy's (a Python number is weak, or value-based on NumPy 1.x)."""
import numpy as np
import pytest

import npcompile
from conftest import DEVICE, check, host_value, make
from npcompile.trace.operand_types import NUMPY2
from test_masked_select import breaks
from test_trace_loops import COMPILED

# what np.count_nonzero(x) returns: a Python int, or NumPy 2's intp (whose arithmetic is
# NumPy's: the same programs then compute NumPy scalars, checked against eager NumPy)
COUNT = np.intp if NUMPY2 else int
REAL = np.float64 if NUMPY2 else float
FLAG = np.bool_ if NUMPY2 else bool


def traced(fn, *args):
    """check() against NumPy (values, types, dtypes), then no break and no fallback, and
    a kernel built where the compiled path runs."""
    got = check(fn, *args)
    assert breaks() == []
    if COMPILED and DEVICE == "cpu":
        assert npcompile.report()["kernels"], "no kernel was built"
    return got


def monte_carlo_pi(n, seed):
    rng = np.random.default_rng(seed)
    x, y = rng.random(n), rng.random(n)
    inside = np.count_nonzero(x * x + y * y <= 1.0)
    return 4 * inside / n


def monte_carlo_pi_batches(n, seed, batches):
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(batches):
        x, y = rng.random(n), rng.random(n)
        hits += np.count_nonzero(x * x + y * y <= 1.0)
    return 4.0 * hits / (n * batches)


def python_arithmetic(x):
    c = np.count_nonzero(x > 0)
    return c, c + 1, 3 - c, c * 2, -c, abs(c - 50), c * 2.5, c / 7, c / x.size, c > 3, \
        c == 0, 2.0 * c - 1


def numpy_with_it(x):
    c = np.count_nonzero(x > 0)
    return x * c, np.sqrt(c), x.astype(np.float32) * c, x.sum() / c, np.float32(2) * c, \
        np.maximum(x, c), np.add(c, 1)


def small_ints_with_it(a):
    return a + np.count_nonzero(a > 0)


def fraction_positive(x):
    return np.count_nonzero(x > 0) / x.size


def test_monte_carlo_pi_compiles_whole():
    got = traced(monte_carlo_pi, 2000, 7)
    assert type(host_value(got)) is REAL


def test_monte_carlo_pi_in_batches():
    got = traced(monte_carlo_pi_batches, 500, 3, 4)
    assert type(host_value(got)) is REAL


@pytest.mark.skipif(not COMPILED or DEVICE != "cpu", reason="reads the CPU loop report")
def test_a_carried_count_compiles_the_loop_body_once():
    """`hits += np.count_nonzero(m)` moves the carried int by at most m.size per batch:
    it cannot outgrow int64 (the body was refused as possibly overflowing, and all but
    the first batch were traced as written)."""
    npcompile.reset()
    npcompile.jit(monte_carlo_pi_batches, choose=False)(500, 3, 12)
    (loop,) = npcompile.report()["loops"]
    assert "one compiled body" in loop["summary"], loop["summary"]


def test_pythons_operators_keep_pythons_types():
    got = traced(python_arithmetic, make((40,), np.float64, seed=2))
    if DEVICE == "cpu":
        assert [type(v) for v in got] == [COUNT] * 6 + [REAL] * 3 + [FLAG] * 2 + [REAL]


def test_numpys_calls_take_it_as_numpy_takes_a_python_number():
    traced(numpy_with_it, make((40,), np.float64, seed=3))   # float32 * int stays float32


@pytest.mark.parametrize("n", [10, 100])
def test_an_int8_array_plus_a_count(n):
    # the count lies in [0, n]: int8 holds it at 10, and the result stays int8; at 100
    # NumPy 1.x too (the values are < 128); NumPy's answer either way
    traced(small_ints_with_it, (np.arange(n) % 50 - 20).astype(np.int8))


def test_a_replay_counts_its_own_values():
    f = npcompile.jit(fraction_positive, choose=False)
    for seed in range(4):
        x = make((50,), np.float64, seed=seed)
        got = f(x)
        assert type(got) is REAL and got == fraction_positive(x)
    assert breaks() == []


def divide_counts(x):
    return np.count_nonzero(x > 0) / np.count_nonzero(x > 1e9)


def powers_and_shifts(x):
    c = np.count_nonzero(x > 0)
    return c ** 2, c << 3, c // 3, c % 7, 2 ** c


def indexes_it(x):
    return np.count_nonzero(x > 0)[0]


def keyed_by_it(x):
    return {np.count_nonzero(x > 0): "n"}


def transposes_it(x):      # the fuzzer's seed 17: a Python int has no .T (NumPy 1.x)
    return np.count_nonzero(x > 0).T + x


@pytest.mark.parametrize("fn", [divide_counts, powers_and_shifts, indexes_it, keyed_by_it,
                                transposes_it])
def test_what_the_graph_does_not_compute_is_pythons_own(fn):
    """Division by a count that may be zero raises ZeroDivisionError; ** and << of a
    Python int do not overflow; a Python int cannot be indexed: Python computes these
    on the value, as the program as written does."""
    check(fn, make((30,), np.float64, seed=5))


def test_a_branch_on_a_count_reads_it():
    def f(x):
        if np.count_nonzero(x > 0) > 10:
            return x.sum()
        return x.mean()
    check(f, make((30,), np.float64, seed=6))


def mean_of_positive(x):
    v = x[x > 0]
    return v.sum() / v.size


def rows_selected(X):
    v = X[X[:, 0] > 0]
    n = v.shape[0]
    return n, v.size, v.shape[1], (v ** 2).sum() / n


@pytest.mark.parametrize("fn, shape", [(mean_of_positive, (50,)), (rows_selected, (20, 3))])
def test_the_size_of_a_selection_is_computed_by_the_graph(fn, shape):
    """x[m].size and x[m].shape: Python ints the graph counts (a break each before)."""
    got = traced(fn, make(shape, np.float64, seed=8))
    if fn is rows_selected:
        assert all(type(v) is int for v in got[:3])


def comparisons(a, b):
    return np.array_equal(a * 1, b), np.array_equal(a, b[:2]), np.allclose(a + 1e-12, b), \
        np.array_equiv(a[:1] * 1, b), np.array_equal(np.sqrt(a - 2), np.sqrt(b - 2),
                                                     equal_nan=True), \
        np.allclose(a, b * 2, rtol=0.6), np.array_equal(a, np.round(b))


@pytest.mark.parametrize("shift", [0.0, 1e-9, 0.5])
def test_array_equal_and_allclose_are_python_bools_the_graph_computes(shift):
    a = make((6,), np.float64, seed=9)
    got = traced(comparisons, a, a + shift)
    assert all(type(host_value(v)) in (bool, np.bool_) for v in got)


def fixed_point(x, maxit):
    for _ in range(maxit):
        x_new = np.cos(x)
        if np.allclose(x_new, x, atol=1e-10):
            break
        x = x_new
    return x


def until_stable(x, maxit):
    for k in range(maxit):
        y = np.round(0.5 * (x + 2.0 / x), 6)
        if np.array_equal(y, x):
            return y, k
        x = y
    return x, maxit


@pytest.mark.parametrize("fn", [fixed_point, until_stable])
def test_a_convergence_test_with_a_python_bool_is_the_exit_of_a_loop(fn):
    """`if np.allclose(new, old): break`: the test is computed by the graph, so the loop
    body compiles once and the test runs after each run of it (a break per iteration
    before: np.array_equal was an unsupported function)."""
    check(fn, np.linspace(0.5, 1.5, 16), 200)
    if COMPILED and DEVICE == "cpu":
        npcompile.reset()
        npcompile.jit(fn, choose=False)(np.linspace(0.5, 1.5, 16), 200)
        rep = npcompile.report()
        (loop,) = rep["loops"]
        assert "one compiled body" in loop["summary"], loop["summary"]


def branches_on_its_type(x):
    c = np.count_nonzero(x > 0)
    n = x[x > 0].size
    return (1 if isinstance(c, int) else 2), isinstance(n, int), isinstance(n / 2, float), \
        isinstance(np.allclose(x, x), bool), isinstance(x * 2, int), c + n


def test_isinstance_answers_for_the_number_as_written():
    """A branch on isinstance(n, int) takes the way the program as written takes."""
    traced(branches_on_its_type, make((20,), np.float64, seed=4))


def over_a_swapped_array(a, c):
    return a / (np.count_nonzero(c > 0) + 1)


def where_of_a_size(b, c):
    return np.where(b > 0, b[b > 0].size, c)


def test_what_the_fuzzer_found():
    """Seed 5894674: a count with a byte-swapped array (a dtype no kernel computes in)
    escaped as an internal error; seed 5895384: np.where(m, n, float32 array) takes the
    Python number weakly on NumPy 2 (float32), where a NumPy int64 made it float64."""
    check(over_a_swapped_array, np.arange(5.0).astype(">f8"), np.array([1, 0, 3], np.uint8))
    check(where_of_a_size, np.array([1, -2, 3], np.int8), np.array([0.5, 1.5, 2.5], np.float32))
