"""Compiled loop nests (codegen/scalar_nest.py) over bool arrays, integers of every width
signed and unsigned, and fixed-width string arrays, and number fills of strided slices,
against eager NumPy 1.x and 2.x: values, dtypes, scalar types, in-place arrays, and
NumPy's own errors and wraparound (the nest stops and the Python loop runs). Each test
checks that the nest ran compiled, or that it declined where it must."""
import math

import numpy as np
import pytest

from conftest import check
from npcompile.codegen.scalar_nest_types import NEP50
from test_native_loop import NATIVE, corpus, ran_native, summaries

pytestmark = NATIVE
INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


def ints(dtype, n, seed=0):
    info = np.iinfo(dtype)
    lo, hi = max(int(info.min), -50), min(int(info.max), 50)
    return np.random.default_rng(seed).integers(lo, hi + 1, n).astype(dtype)


def mix(a, b):
    """Element arithmetic of two arrays and a Python int, stored into a third."""
    out = np.zeros_like(a)
    s = 0
    for i in range(a.shape[0]):
        x = a[i] * 2 + b[i] - 3
        out[i] = x // 3 + x % 5
        if a[i] > b[i]:
            s += 1
    return out, s, x


@pytest.mark.parametrize("dtype", INTS)
def test_every_integer_width(dtype):
    check(mix, ints(dtype, 40, 1), ints(dtype, 40, 2) // 2 + 3)
    assert ran_native()


@pytest.mark.parametrize("dtype", INTS)
def test_fixed_width_integers_wrap_as_numpy_does(dtype):
    """Past the type's range NumPy's scalars wrap and warn: the nest stops, the Python
    loop gives NumPy's wrapped values."""
    info = np.iinfo(dtype)
    a = np.array([1, info.max - 1, info.max, 3], dtype)

    def add(a):
        out = np.zeros_like(a)
        for i in range(a.shape[0]):
            out[i] = a[i] + a[i]
        return out
    check(add, a)
    check(add, a[:1])
    assert ran_native()


def test_mixed_signed_and_unsigned_promote_as_numpy():
    def f(a, b):
        out = np.zeros(a.shape[0], np.int64)
        for i in range(a.shape[0]):
            y = a[i] - b[i]             # uint8 - int8: int16, uint64 - int64: float64
            out[i] = y
        return out, y
    check(f, np.array([0, 200, 255], np.uint8), np.array([-128, 5, 127], np.int8))
    check(f, np.array([0, 7, 9], np.uint64), np.array([-3, 5, 2], np.int64))
    assert ran_native()


def compare(a, b):
    k = 0
    for i in range(a.shape[0]):
        if a[i] < b[i]:
            k += 1
        if a[i] == -1:
            k += 10
        if a[i] >= 300:
            k += 100
    return k


@pytest.mark.parametrize("pair", [(np.uint32, np.int32), (np.uint64, np.int64),
                                  (np.uint8, np.int8), (np.uint64, np.int8)])
def test_comparisons_are_by_value(pair):
    """C would compare uint32 with int32 as unsigned: NumPy compares values (NumPy 1
    compares uint64 with int64 as float64, and so does the nest there)."""
    ua, sb = pair
    a = np.array([0, 1, 5, np.iinfo(ua).max, 2 ** 60 + 1 if ua is np.uint64 else 3], ua)
    b = np.array([-1, 1, -128, 1, 2 ** 60 if sb is np.int64 else 2], sb)
    check(compare, a, b)
    assert ran_native()


def python_int(a, k):
    out = np.zeros(a.shape[0], np.int64)
    for i in range(a.shape[0]):
        out[i] = a[i] + k
    return out


@pytest.mark.parametrize("k", [1, 300, -1])
def test_a_python_int_next_to_a_narrow_int(k):
    """NumPy 2 raises OverflowError where the Python int does not fit uint8; NumPy 1
    computes in int64."""
    check(python_int, np.array([1, 2, 250], np.uint8), k)
    assert ran_native() or k != 1


@pytest.mark.parametrize("value", [7, 300, -1, 2.9, -0.5, float("nan"), 1e10, True])
@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.uint64, np.bool_])
def test_stores_cast_as_numpys_setitem(value, dtype):
    def f(out, v):
        for i in range(out.shape[0]):
            out[i] = v
        return out
    check(f, np.zeros(3, dtype), value)


def test_numpy_ints_stored_narrower_wrap_as_numpy_does():
    """NumPy 1 wraps them silently; NumPy 2 stores them as Python ints (OverflowError
    into a signed array where they do not fit): the nest stops there."""
    def f(a, out):
        for i in range(a.shape[0]):
            out[i] = a[i] * 3
        return out
    for dtype in (np.uint8, np.int8):
        check(f, np.array([100, 1000, -7], np.int64), np.zeros(3, dtype))
        assert ran_native() or NEP50
        check(f, np.array([10, 20, 0], np.int64), np.zeros(3, dtype))
        assert ran_native()


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.uint64])
@pytest.mark.parametrize("d", [0, 3])
def test_integer_division_by_zero_is_numpys(dtype, d):
    def f(a, d):
        out = np.zeros_like(a)
        for i in range(a.shape[0]):
            out[i] = a[i] // d + a[i] % d
        return out
    check(f, np.array([9, 4, 1], dtype), dtype(d))
    assert d == 0 or ran_native()


def test_uint64_values_past_int64():
    def f(a, k):
        big = a[0]
        for i in range(a.shape[0]):
            if a[i] > big:
                big = a[i]
        return big, a[k]
    a = np.array([3, 2 ** 64 - 5, 2 ** 63 + 1, 7], np.uint64)
    assert check(f, a, np.uint64(2)) == (np.uint64(2 ** 64 - 5), np.uint64(2 ** 63 + 1))
    assert ran_native()
    check(f, a, np.uint64(2 ** 63 + 2))     # IndexError, not an index from the end


def test_uint64_index_past_int64_is_numpys_error():
    def f(a, k):
        s = 0
        for i in range(3):
            s += a[k]
        return s
    check(f, np.arange(5, dtype=np.uint64), np.uint64(2 ** 64 - 1))


def flags_and_counts(x, t):
    above = np.zeros(x.shape[0], bool)
    count = 0
    for i in range(x.shape[0]):
        above[i] = x[i] > t
        count += above[i]           # a Python int and a NumPy bool: a NumPy int64
    total = 0.0
    for i in range(x.shape[0]):
        if above[i] and not above[i - 1]:
            total += x[i] * above[i]
    return above, count, total


def test_bool_arrays():
    check(flags_and_counts, np.random.default_rng(3).random(30), 0.4)
    assert ran_native()


def test_bool_minus_bool_is_numpys_error():
    def f(m):
        out = np.zeros(m.shape[0], np.int64)
        for i in range(1, m.shape[0]):
            out[i] = m[i] - m[i - 1]
        return out
    check(f, np.array([True, False, True]))
    assert not ran_native()


def test_bool_scalar_arguments_and_float_stores_into_bools():
    def f(out, x, flag):
        for i in range(out.shape[0]):
            out[i] = x[i] if flag else x[0]
        return out
    x = np.array([0.0, -0.0, 0.5, np.nan, 3.0])
    check(f, np.ones(5, bool), x, np.bool_(True))
    check(f, np.ones(5, bool), x, False)
    assert ran_native()


# ----------------------------------------------------------------------------- strings

def matches(a, b):
    n = 0
    for i in range(a.shape[0]):
        for j in range(b.shape[0]):
            if a[i] == b[j]:
                n += 1
            elif a[i] != b[j] and a[i] == "G":
                n += 100
    return n


@pytest.mark.parametrize("dta, dtb", [("<U1", "<U1"), ("<U1", "<U3"), ("<U4", "<U2")])
def test_string_elements_compare_as_numpys_strings(dta, dtb):
    """Elements lose their trailing NULs: 'A' equals 'A\\0\\0' of a wider array, and
    'A\\0B' keeps its inner NUL."""
    a = np.array(["A", "G", "", "AB", "A\0B", "\u00e9"], dta)
    b = np.array(["A", "AB", "", "G", "A\0B", "AB\0"], dtb)
    check(matches, a, b)
    assert ran_native()


def test_bytes_elements_and_constants():
    def f(a, b):
        n = 0
        for i in range(a.shape[0]):
            if a[i] == b[i] or a[i] == b"T" or a[i] == b"":
                n += 1
        return n
    check(f, np.array([b"A", b"T", b"", b"GG"], "S2"), np.array([b"A", b"C", b"C", b"G"], "S1"))
    assert ran_native()


def test_str_against_bytes_and_ordering_run_python():
    def f(a, b):
        n = 0
        for i in range(a.shape[0]):
            if a[i] == b[i]:
                n += 1
        return n
    check(f, np.array(["A", "C"]), np.array([b"A", b"C"]))
    assert not ran_native()
    assert any("str with bytes" in s for s in summaries())

    def g(a):
        n = 0
        for i in range(1, a.shape[0]):
            if a[i] < a[i - 1]:
                n += 1
        return n
    check(g, np.array(["B", "A", "C"]))
    assert any("ordering comparison of strings" in s for s in summaries())


def test_stores_into_string_arrays_run_python():
    def f(a):
        for i in range(a.shape[0]):
            if a[i] == "T":
                a[i] = "U"
        return a
    check(f, np.array(list("GATTACA")))
    assert not ran_native()


def test_string_index_out_of_bounds_is_numpys_error():
    def f(a, b):
        n = 0
        for i in range(a.shape[0] + 1):
            if a[i] == b[i]:
                n += 1
        return n
    check(f, np.array(list("ACGT")), np.array(list("ACGTT")))


def count_of(seq, base):
    n = 0
    for i in range(len(seq)):
        ch = seq[i]                 # a string held in a variable inside the loop
        if ch == base or (ch != "A" and ch == seq[0]):
            n += 1
    return n


@pytest.mark.parametrize("base", ["G", np.str_("G"), "GA", "", "A"])
def test_string_arguments_and_variables(base):
    check(count_of, np.array(list("GATTACAGG")), base)
    assert ran_native()


def test_a_string_argument_ending_in_nul_runs_python():
    """'G\0' is not 'G' to Python, where padding would make it so."""
    check(count_of, np.array(list("GATTACAGG")), "G\0")
    assert not ran_native()
    check(count_of, np.array(list("GATTACAGG")), "G")
    assert ran_native()


def test_a_string_variable_read_after_the_loop_runs_python():
    def last_gap(seq):
        c = "-"
        for i in range(len(seq)):
            if seq[i] != "-":
                c = seq[i]
        return c
    check(last_gap, np.array(list("AC-G-")))
    assert any("read after the loop" in s for s in summaries())


# ----------------------------------------------------------------------------- fills

def test_the_corpus_sieve_fills_strided_slices():
    sieve = corpus("sieve")
    check(sieve, 1000)
    check(sieve, 2)
    assert ran_native()


def test_the_corpus_needleman_wunsch_compares_characters():
    nw = corpus("needleman_wunsch")
    dna = lambda n, seed: np.array(list(np.random.default_rng(seed).choice(list("ACGT"), n)))  # noqa: E731
    check(nw, dna(20, 1), dna(31, 2))
    assert ran_native()
    assert not [s for s in summaries()
                if "runs as Python" in s or "not a scalar loop nest" in s]


def fill_slices(A, a, b, st, v):
    for i in range(A.shape[0]):
        if A[i, 0] != 0:            # an element read: the nest runs compiled
            continue
        if i % 2 == 0:
            A[i, a:b:st] = v
        elif i % 3 == 0:
            A[i, ::st] = v + 1
        else:
            A[i, a::-st] = i
    return A


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int16, np.uint8, np.bool_])
@pytest.mark.parametrize("a, b, st", [(1, 5, 1), (-2, 1, -1), (6, -9, -2), (100, 0, 1),
                                      (0, 7, 3), (-100, 100, 2)])
def test_fills_of_slices_with_steps(dtype, a, b, st):
    check(fill_slices, np.zeros((5, 7), dtype), a, b, st, 1.5)
    assert ran_native()


def test_a_zero_step_and_an_index_out_of_bounds_are_numpys_errors():
    check(fill_slices, np.zeros((4, 7)), 1, 5, 0, 2.0)
    check(fill_slices, np.zeros((4, 7)), 1, 5, 0, 2.0)

    def rows(A, k):
        for i in range(k):
            if A[i, 0] > 0:
                A[i, :] = 0
        return A
    check(rows, np.ones((3, 4), np.int32), 4)
    check(rows, np.ones((3, 4), np.int32), 2)
    assert ran_native()


@pytest.mark.parametrize("v", [300, -1, float("nan"), 2.5])
def test_fills_cast_as_numpys_setitem(v):
    def f(A, v):
        for i in range(A.shape[0]):
            A[i, 1:] = v
        return A
    check(f, np.zeros((2, 3), np.uint8), v)


def test_float64_slice_arithmetic_with_steps():
    def f(u):
        for t in range(3):
            if u[0] < 100:
                u[1::2] = 0.5 * (u[0:-1:2] + u[1::2])
                u[::-1] += 1.0
        return u
    check(f, np.arange(11.0))
    assert ran_native()


def test_size_and_ndim():
    def f(A):
        total = 0.0
        for k in range(A.size):
            total += A.ndim * k
        return total
    check(f, np.zeros((3, 4), np.uint16))
    assert ran_native()


def roots(a):
    out = np.zeros(a.shape[0])
    for i in range(a.shape[0]):
        out[i] = np.sqrt(a[i]) + np.floor(a[i]) + np.minimum(a[i], 7)
    return out, np.sqrt(a[0]), np.floor(a[0]), np.minimum(a[0], 7)


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.int16, np.uint16, np.uint8])
def test_numpy_functions_of_integers_take_numpys_result_types(dtype):
    """np.sqrt of an int16 is a float32, of a uint8 a float16 (refused); np.floor of an
    int64 is an int64 under NumPy 2, a float64 under NumPy 1."""
    check(roots, np.arange(1, 6, dtype=dtype))
    assert ran_native() == (dtype is not np.uint8)


def test_np_minimum_with_a_python_int_that_does_not_fit():
    def f(a):
        out = np.zeros(a.shape[0], np.int64)
        for i in range(a.shape[0]):
            out[i] = np.minimum(a[i], 300)
        return out
    check(f, np.array([1, 200], np.uint8))


def constants_and_casts(x, n):
    out = np.zeros(n, dtype=np.float32)
    total = np.int64(0)
    lo = 0.0
    for k in range(n):
        lo = float("inf")
        out[k] = np.float32(math.sin(2 * np.pi * k / n) + math.e - np.e)
        total += np.int64(k) * np.int32(2) + np.uint8(x[k % x.shape[0]])
        for j in range(x.shape[0]):
            if x[j] < lo and x[j] > -math.inf:
                lo = x[j]
        if lo == np.nan or math.tau < 0:
            total = np.int64(-1)
    return out, total, lo


@pytest.mark.parametrize("x", [[3.5, 2.0, 7.25], [300.0, 1.0], [float("nan"), 1.0]])
def test_module_constants_and_numpy_casts(x):
    """np.uint8(300.0) is NumPy 2's OverflowError, np.uint8(nan) a ValueError: the nest
    stops there and the Python loop raises."""
    check(constants_and_casts, np.array(x), 9)
    assert ran_native() or x[0] != 3.5


@pytest.mark.parametrize("v", [7, 300, -1, 2.5])
def test_numpy_casts_of_python_numbers(v):
    def f(n, v):
        s = np.int16(0)
        for k in range(n):
            s = s + np.uint8(v) + np.int16(k)
        return s
    check(f, 5, v)
    assert ran_native() or v in (300, -1)


def bits(a, b, k):
    out = np.zeros_like(a)
    h = 0
    for i in range(a.shape[0]):
        out[i] = ((a[i] & b[i]) | (a[i] ^ ~b[i])) ^ (a[i] << k) ^ (a[i] >> k)
        h ^= (i << k) >> 1
        h = h | (i & 3)
    return out, h


@pytest.mark.parametrize("dtype", INTS)
@pytest.mark.parametrize("k", [0, 3, 40, 70])
def test_bitwise_operators_of_every_integer_width(dtype, k):
    """Shifts past the width are NumPy's 0 (or -1), never C's undefined behaviour; a
    Python int shifted past int64 is Python's big int."""
    a, b = ints(dtype, 30, 4), ints(dtype, 30, 5)
    check(bits, a, b, k)
    check(bits, a, b, dtype(k % 8))
    # NumPy 1 has no uint64 << int64 (a Python int counts as one there): its TypeError
    assert ran_native() or k == 70 or (dtype is np.uint64 and not NEP50)


def test_negative_shift_counts_and_mixed_signedness_are_numpys():
    check(bits, ints(np.int32, 5), ints(np.int32, 5), -1)     # Python: ValueError
    check(bits, ints(np.int32, 5), ints(np.int32, 5), np.int32(-1))
    check(bits, np.arange(5, dtype=np.uint64), np.arange(5, dtype=np.int64), 1)   # TypeError


def test_bitwise_operators_of_bools_are_logical():
    def f(m, n):
        out = np.zeros(m.shape[0], bool)
        c = 0
        for i in range(m.shape[0]):
            out[i] = (m[i] & n[i]) | (~m[i] ^ (i > 2))
            c += (m[i] | True) + (i & 1)
        return out, c
    rng = np.random.default_rng(6)
    check(f, rng.random(8) < 0.5, rng.random(8) < 0.5)
    assert ran_native()


@pytest.mark.parametrize("start", [0, 100, 300, -1])
def test_a_python_int_that_becomes_a_narrow_numpy_int(start):
    """`s = start` then `s += a[i]`: under NumPy 2 s is a uint8 after the first
    iteration, and a start that does not fit is NumPy's OverflowError there."""
    def f(a, s):
        for i in range(a.shape[0]):
            s += a[i]
        return s
    check(f, np.array([1, 2, 3], np.uint8), start)
    assert ran_native() or start in (300, -1)


def smith_waterman(a, b, gap):
    """Local alignment: max(0, ...) of a Python int and float64 table entries, stored."""
    H = np.zeros((a.shape[0] + 1, b.shape[0] + 1))
    best = 0.0
    for i in range(1, a.shape[0] + 1):
        for j in range(1, b.shape[0] + 1):
            s = 2 if a[i - 1] == b[j - 1] else -1
            H[i, j] = max(0, H[i - 1, j - 1] + s, H[i - 1, j] - gap, H[i, j - 1] - gap)
            if H[i, j] > best:
                best = H[i, j]
    return H, best


def test_an_extremum_of_mixed_types_stored_into_an_array():
    dna = lambda n, seed: np.array(list(np.random.default_rng(seed).choice(list("ACGT"), n)))  # noqa: E731
    check(smith_waterman, dna(25, 7), dna(30, 8), 1.5)
    check(smith_waterman, dna(25, 7), dna(30, 8), 2)
    assert ran_native()


@pytest.mark.parametrize("k", [0, -5, 300])
def test_a_stored_extremum_with_a_python_int_that_may_not_fit(k):
    def f(a, out, k):
        for i in range(a.shape[0]):
            out[i] = min(k, a[i], 200)
        return out
    check(f, np.array([3, 250, 0], np.uint8), np.zeros(3, np.uint8), k)
    check(f, np.array([3, 250, 0], np.uint8), np.zeros(3, np.float32), k)
    assert ran_native() or k != 0


def test_a_stored_extremum_that_would_round_runs_python():
    """max(0.1, a float32) is the Python float 0.1 itself where it wins, not 0.1 rounded
    to float32: refused; max(0.5, ...) is exact either way."""
    def f(a, out, c):
        for i in range(a.shape[0]):
            out[i] = max(0.1, a[i])
            out[i] += max(c, a[i])
        return out
    a = np.array([0.0, 0.3, -1.0], np.float32)
    check(f, a, np.zeros(3), 2 ** 60 + 1)
    assert not ran_native()

    def g(a, out):
        for i in range(a.shape[0]):
            out[i] = max(0.5, a[i], 0)
        return out
    check(g, a, np.zeros(3))
    assert ran_native()


def test_the_truth_of_a_string_runs_python():
    def f(seq, gap):
        n = 0
        for i in range(seq.shape[0]):
            ch = seq[i]
            if ch and gap:
                n += 1
        return n
    check(f, np.array(["A", "", "C"]), "")
    check(f, np.array(["A", "", "C"]), "-")
    assert not ran_native()


# ----------------------------------------------------------------------------- element loops

def over_elements(data, t, seq):
    count = 0
    for v in data:
        if v > t:
            count += 1
    gc = 0
    for ch in seq:
        if ch == "G" or ch == "C":
            gc += 1
    return count, v, gc


@pytest.mark.parametrize("dtype", [np.float64, np.int16, np.uint8, np.bool_])
def test_for_each_element_of_an_array(dtype):
    check(over_elements, np.arange(10).astype(dtype), 4, np.array(list("GATTACAGC")))
    assert ran_native()


def test_zip_and_enumerate():
    def f(a, b, k):
        s = 0.0
        for x, y in zip(a, b):          # the shortest
            s += x * y
        for i, x in enumerate(a, k):
            s += i * x
            k += 1                      # the start was taken once
        for j, x in enumerate(b):
            if j + 1 < b.shape[0]:
                b[j + 1] = b[j + 1] + x     # step j + 1 reads what step j wrote
        return s, i, x, b
    check(f, np.arange(5.0), np.arange(7.0), 3)
    check(f, np.arange(5.0), np.arange(3.0), -2)
    assert ran_native()


def test_rows_bound_to_a_name_are_views():
    def f(A):
        total = 0.0
        for i in range(A.shape[0]):
            row = A[i]      # (A[i, :], a view: its writes are A's)
            if total < 10:
                total += row.sum()
            row[0] = total
        return total, A
    check(f, np.arange(6.0).reshape(3, 2))
    assert ran_native()


def test_element_loops_over_what_is_not_an_array_run_python():
    check(over_elements, [1, 5, 7], 4, np.array(list("GC")))
    assert any("data is a list" in s for s in summaries())


# ----------------------------------------------------------------------------- resets

def matvec_rows(A, x):
    y = np.zeros(A.shape[0], A.dtype)
    for i in range(A.shape[0]):
        s = 0                       # a Python int each row, a NumPy scalar after one step
        best = 0
        for j in range(A.shape[1]):
            s += A[i, j] * x[j]
            if A[i, j] > best:
                best = A[i, j]
        y[i] = s + best / 2
    return y


@pytest.mark.parametrize("dtype", [np.float64, np.int64, np.int32])
def test_a_variable_reset_to_a_python_number_each_outer_step(dtype):
    A = np.arange(20).reshape(4, 5).astype(dtype) - 7
    check(matvec_rows, A, np.arange(5).astype(dtype))
    assert ran_native()


def test_resets_read_where_the_types_differ_run_python():
    """best = 0 then best = a float32: best / 2 is a Python float or a float32; and a
    Python int shifted left keeps its bits where an int32 drops them."""
    A = np.arange(20).reshape(4, 5).astype(np.float32)
    check(matvec_rows, A, np.arange(5, dtype=np.float32))
    assert any("best holds a Python number or a NumPy float32" in s for s in summaries()) \
        or not NEP50      # NumPy 1: best / 2 is a float64 either way

    def shifts(a):
        out = np.zeros(a.shape[0], np.int64)
        for i in range(a.shape[0]):
            h = 1
            out[i] = h << 40        # a Python int: 2**40; an int32 would give 0
            h = a[i]
            out[i] += h
        return out
    check(shifts, np.arange(3, dtype=np.int32))
    assert any("h holds a Python number" in s for s in summaries()) or not NEP50


def test_resets_next_to_other_numpy_types():
    """s = 0, then s += an int32 times a float64: a float64 either way."""
    def mixed(A, x):
        y = np.zeros(A.shape[0])
        for i in range(A.shape[0]):
            s = 0
            for j in range(A.shape[1]):
                s += A[i, j] * x[j]
            y[i] = s
        return y
    check(mixed, np.arange(20).reshape(4, 5).astype(np.int32), np.arange(5.0))
    assert ran_native()
