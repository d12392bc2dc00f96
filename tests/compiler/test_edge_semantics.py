"""Edge semantics that gave wrong values or internal errors (issue 16's list), against
eager NumPy under the installed NumPy's own promotion rules: value-based casting on
1.x, NEP 50 on 2.x."""
import warnings

import numpy as np
import pytest

import npcompile
from conftest import check, make, same
from test_trace_loops import COMPILED, DEVICE, compiled_without_fallback


def test_float32_against_a_python_int_float32_cannot_hold():
    """NumPy 1.x compares in float64 (value-based casting), NumPy 2 in float32."""
    a = np.float32([16777216, 3, -16777216])
    for fn in (lambda x: x == 16777217, lambda x: x < 16777217, lambda x: x >= -16777217,
               lambda x: (x * 2 == 33554434) | (x > 2**40)):
        check(fn, a)
        compiled_without_fallback()


def test_a_0d_power_keeps_numpys_dtype():
    for e in (np.array(1), np.array(2), np.array(3), np.array(0.5)):
        check(lambda a, b: a ** b, np.array(np.float32(-0.75)), e)
        check(lambda a, b: a ** b * 2, np.array(np.float32(1.5)), e)
    check(lambda x: x ** np.array(2), np.array([1.5, 2.5], np.float32))
    # an exponent made in the trace (fuzzer seed 5001368): bool ** 2 is np.square's
    # int8 under NumPy 1.x, bool ** 3 np.power's int64
    for v in ([1, 5, 2], [1, 5, 9, 0]):
        check(lambda b, c: (b > 0) ** np.argmax(c), np.array([1, -1, 2]), np.array(v))


@pytest.mark.parametrize("name", ["argmax", "argmin", "sum", "max", "mean"])
def test_reductions_of_0d_arrays_along_an_axis(name):
    fn = getattr(np, name)
    check(lambda a: fn(a * 1, axis=0), np.array(3.0))
    check(lambda a: fn(a * 1, axis=-1), np.array(3.0))
    check(lambda a: fn(a * 1, axis=1), np.array(3.0))    # NumPy's AxisError


def test_python_ints_beyond_64_bits():
    check(lambda a: a[-1] + 2**70, np.arange(3))
    check(lambda a: a[-1] & 2**70, np.arange(3))
    check(lambda a: a * 2**70, np.arange(3))


def test_an_unused_negative_integer_power_raises():
    def dead(a):
        np.power(a, [-8])
        return a + 1
    check(dead, np.arange(1, 4, dtype=np.int8))
    check(lambda a: (a ** -2, a)[1] * 1, np.arange(1, 4))
    check(lambda a: np.power(a, [2, 0, 1]) + 1, np.arange(1, 4, dtype=np.int8))
    check(lambda b: (b ** -3, b)[1] * 1, np.array([True, False]))   # bool ** int: integers
    compiled_without_fallback()


def test_numpy_scalars_are_hashable_arrays_are_not():
    check(lambda a: {a.sum(): 1, a.max(): 2}, np.arange(3.0))
    check(lambda a: len({a[0] * 2, a[1] * 2}), np.arange(3.0))
    check(lambda a: {a * 2: 1}, np.arange(3.0))       # TypeError, as NumPy's


def test_keys_and_set_members_are_numpy_scalars_of_each_call():
    """A dict keyed by computed values, and sets of them, hold NumPy's scalars, not lazy
    arrays; a replay must not hand back the first call's keys for new data of the same
    shape (the keys are data: no plan keeps them)."""
    def keyed(a):
        return {a.sum(): 1, "m": a.max()}, {a[0] * 2, a[1]}, frozenset([a.min()])
    f = npcompile.jit(keyed, device=DEVICE)
    for seed in range(4):
        a = make((5,), np.float64, seed)
        got, exp = f(a), keyed(a)
        assert got == exp
        for g, e in zip(got, exp):
            assert sorted(type(k).__name__ for k in g) == sorted(type(k).__name__ for k in e)


def _warned(fn, *args):
    """(result or the exception's type, [warning messages]) of fn(*args)."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            got = fn(*args)
        except Exception as e:     # noqa: BLE001 - NumPy's error is the result here
            got = type(e)
    return got, [str(x.message) for x in w]


def _int_divisions(a, b):
    return a % b + 1, a // b, np.fmod(a, b)


def _dead_remainder(a, b):
    a % b
    return a + 1


@pytest.mark.parametrize("fn", [_int_divisions, _dead_remainder])
@pytest.mark.parametrize("dtype", [np.int64, np.uint8, np.int16])
def test_integer_division_by_zero_warns_and_raises_as_numpy(fn, dtype):
    """NumPy gives 0 for an integer divided by 0 with its divide-by-zero warning, or its
    FloatingPointError under np.errstate; a kernel flags the zero divisor and the graph
    runs again in NumPy (issue 16: `a % 0` gave values and no warning)."""
    a = np.arange(1, 7).astype(dtype)
    b = np.array([0, 1, 2, 0, 3, 1]).astype(dtype)
    f = npcompile.jit(fn, device=DEVICE, choose=False)
    exp, exp_w = _warned(fn, a.copy(), b.copy())
    for _ in range(3):
        got, got_w = _warned(f, a.copy(), b.copy())
        if isinstance(exp, type):
            assert got is exp
        else:
            same(got, exp)
        assert got_w == exp_w
    with np.errstate(divide="ignore"):
        assert _warned(f, a.copy(), b.copy())[1] == []
    with np.errstate(divide="raise"):
        assert _warned(f, a.copy(), b.copy())[0] is FloatingPointError
    got, _ = _warned(f, a.copy(), b.copy() + 1)      # no zero: compiled, no warning
    same(got, fn(a.copy(), b.copy() + 1))


def _mod_seven(x, n):
    for k in range(n):
        x = (x * 3 + k) % 7
    return x


def test_a_division_by_a_constant_other_than_0_flags_nothing():
    """Only a divisor that may be 0 makes the kernel flag (and the engine keep copies of
    what the graph writes, for a rerun): `% 7` in a loop body, whose symbolic kernel
    reads 7 from its parameters, does not."""
    npcompile.reset()
    check(_mod_seven, np.arange(50), 12)
    if COMPILED and DEVICE == "cpu":
        sources = [k["source"] for k in npcompile.report()["kernel_sources"]]
        assert sources and not any("npc_bad" in src for src in sources)


def _times_a_count(a, b):
    n = np.count_nonzero(b > 0) * 3 - 1      # a Python int the graph computes
    a *= n
    return a


@pytest.mark.parametrize("a", [np.array(127, np.int8), np.array(5, np.int16),
                               np.array([127, 5], np.int8), np.array(2.5, np.float32),
                               np.array(2.5, ">f8")])
def test_an_in_place_op_of_a_0d_array_and_a_computed_number_writes_once(a):
    """Probing NumPy's dtype for the Python number called the ufunc with the traced
    out= itself: each probe wrote into `a` (five multiplications; the fuzzer's seed
    5973748: 0 where NumPy gives -127), or into the user's own array where `a` is not
    traced (byte-swapped, seed 5986258)."""
    check(_times_a_count, a, np.array(-5.0, np.float32))
    check(_times_a_count, a, np.array([1.0, 2.0], np.float32))


def _minus_big(c):
    c -= 2**40
    return c


@pytest.mark.parametrize("c", [np.array(np.inf, np.float16), np.array(1.5, np.float16),
                               np.array(3.0, np.float32), np.array([np.inf, 1.0], np.float16)])
def test_an_in_place_op_of_0d_operands_and_a_python_number_runs_in_numpys_loop(c):
    """NumPy 1.x promotes a Python number with 0-d operands by the number's own dtype:
    a 0-d float16 `c -= 2**40` runs in float64 and gives inf where float16 gave
    inf - inf = nan (the fuzzer's seed 5987868); NumPy 2 takes the number weakly."""
    check(_minus_big, c)


def test_var_in_a_small_integer_dtype_of_one_element_replays_numpys_value():
    """a.var(axis=-1, dtype=np.int8, ddof=1) of one element: the first call was right,
    replayed calls returned 1, 6, 79, ... (memory the kernel never wrote)."""
    f = npcompile.jit(lambda a: a.var(axis=-1, dtype=np.int8, ddof=1), device=DEVICE)
    a = np.array([3.0])
    with np.errstate(all="ignore"):
        exp = a.var(axis=-1, dtype=np.int8, ddof=1)
        for _ in range(5):
            same(f(a.copy()), exp)


def test_a_0d_power_after_1d_calls_keeps_numpys_dtype():
    """The same function called with 1-d arrays first, then with 0-d ones: the 0-d
    float32 ** np.array(1) stays float32 as NumPy gives it (it came back float64)."""
    def pw(x, e):
        return x ** e
    f = npcompile.jit(pw, device=DEVICE)
    for x, e in [(np.float32([0.5, -0.75]), np.array([1, 2])),
                 (np.float32([0.5, -0.75]), np.array([1, 2])),
                 (np.array(np.float32(-0.75)), np.array(1)),
                 (np.array(np.float32(-0.75)), np.array(1)),
                 (np.float32([1.5, 2.0]), np.array(2))]:
        same(f(x, e), pw(x, e))


def test_in_place_power_of_0d_arrays():
    def ipow(a, b):
        a **= b
        return a
    check(ipow, np.array(2.0), np.array(3.0))
    check(ipow, np.array([2.0, 3.0]), np.array(3.0))


def test_arrays_larger_than_memory_raise_numpys_memory_error_at_once():
    """NumPy raises MemoryError at the allocation; a fused kernel would have run over
    10**13 elements without one (issue 16: ten minutes through SIGINT)."""
    npcompile.reset()
    with pytest.raises(MemoryError):
        npcompile.jit(lambda a: (np.zeros(10**13) + a).sum())(1.0)
    with pytest.raises(MemoryError):
        npcompile.jit(lambda a: (a[None, :] * a[:, None]).sum())(np.ones(10**7))
    reasons = [f["reason"] for f in npcompile.report()["fallbacks"]]
    assert len(reasons) == 2 and all("larger than this machine's memory" in r for r in reasons)


def test_a_dead_integer_power_of_run_time_exponents_raises_first():
    """Eager NumPy raises at `a ** e` (a negative exponent) before the later error; the
    power is computed even though nothing reads it (fuzzer seeds 516 and 5562452)."""
    def dead(a, e):
        a ** e
        return a + 1

    def before_a_type_error(a, e, c):
        t = (a - 1) - (a ** e)
        return t ^ (np.inf | c)
    e = np.array([2, -1, 3], dtype=np.int8)
    check(dead, np.arange(1, 4, dtype=np.int32), e)
    check(dead, np.arange(1, 4, dtype=np.int32), np.abs(e))
    check(before_a_type_error, np.arange(1, 4, dtype=np.int32), e, np.ones(3, ">f8"))


def test_writes_before_an_error_land_as_eagerly():
    """NumPy raises at the power; the in-place writes before it happened (fuzzer seeds
    9000838, 7000330): they land in the caller's arrays, and the error is NumPy's."""
    def masked_then_power(b, e):
        b[b > 0] = 0.5
        c = b[::-1] ** e
        return c + 1

    def add_then_power(c, e):
        c += c[::-1]
        return c ** e
    check(masked_then_power, np.arange(-3, 3, dtype=np.int16), np.array([1, -1, 2, 1, 1, 1]))
    check(add_then_power, np.arange(-3, 3, dtype=np.int32), np.array([1, -1, 2, 1, 1, 1]))


def test_writes_before_an_error_land_once():
    """The graph that raised is not run again when the call ends on that error: the
    writes landed once (fuzzer seed 9102803: b came out 78 higher, not 39, and the
    second run, from the landed values, raised nothing)."""
    def steps_then_power(a, b):
        for _ in range(13):
            b -= -3
        a *= 2 ** b          # a negative power first, then uint8 *= int64 (same_kind)
        return a
    args = [np.array([43, 89, 89, 93, 54], np.uint8), np.array([78, -11, 77, -56, 56])]
    eager = [a.copy() for a in args]
    with pytest.raises(ValueError):
        steps_then_power(*eager)
    with pytest.raises(ValueError):
        npcompile.jit(steps_then_power, choose=False)(*args)
    for got, exp in zip(args, eager):
        np.testing.assert_array_equal(got, exp)


def test_an_unused_gather_with_known_indices_out_of_bounds_raises():
    """NumPy raises IndexError at the call; the gather's result is never read (fuzzer
    seed 4002757)."""
    def dead(a):
        a.ravel()[[0, 2, -1]]
        return a * 2
    check(dead, np.ones(1, np.complex128))
    check(dead, np.ones(3))
    check(lambda a: a[[0, -4]] + 1, np.ones(3))


@pytest.mark.parametrize("bounds", [(-1, 1), (-1, 300), (2, 300), (0, 1)])
def test_clip_bounds_an_integer_dtype_cannot_hold(bounds):
    """np.clip(uint8, -1, 1): cast to uint8, -1 would be 255 and every 0 would become 1
    (fuzzer seed 8000403). NumPy's own clip decides such bounds."""
    lo, hi = bounds
    check(lambda b: np.clip(b, lo, hi) * 1, np.array([0, 5, 200], np.uint8))
    check(lambda b: np.clip(b, lo, hi) * 1, np.array([-100, 0, 5], np.int8))
    check(lambda b: np.clip(b * 1, lo, hi), np.array(0, np.uint8))


def test_argsort_and_sort_of_a_0d_array():
    """np.argsort of a 0-d array is [0] whatever the axis; np.sort along an axis raises
    NumPy's AxisError (fuzzer seed 9300796)."""
    def order(a, c):
        t = np.argsort(a, axis=0)
        return np.where(np.sin(t[::-1]) > 0, a, c % t[::-1]), t + t

    def sorted_along(a):
        return np.sort(a * 2, axis=0)
    check(order, np.array(3, np.int32), np.array(2.5, np.float32))
    check(sorted_along, np.array(3.0))
    check(lambda a: np.sort(a + 1, axis=None), np.array(3.0))


def test_asarray_of_a_numpy_scalar_is_a_0d_array():
    """np.asarray(x.sum()) is a 0-d array (it was the scalar), a new one: writing into
    it leaves the scalar as it was."""
    def into(x):
        s = x.sum()
        a = np.asarray(s)
        a[...] = 0
        return s, a, np.array(x[0] * 2), np.asarray(s, dtype=np.float32)
    for x in (np.arange(4.0), np.arange(4) * (1 + 1j)):
        check(into, x)
        assert npcompile.report()["graph_breaks"] == []


def test_mean_with_an_integer_dtype_divides_in_float64():
    """np.mean(..., dtype=np.int64) sums in int64 and divides in float64 before casting
    back, as NumPy does (an exact integer division gave -2**61 + 25 against NumPy's -2**61,
    fuzzer seed 9600077); var and std with integer dtypes are NumPy's own."""
    big = np.array([[-2**61], [-2**61], [-2**61], [-2**61 + 100]], np.int64)
    check(lambda b: np.mean(b, axis=None, keepdims=True, dtype=np.int64), big)
    c = np.arange(12).reshape(3, 4)
    check(lambda b: (np.mean(b * 3, axis=0, dtype=np.int32), np.var(b, dtype=np.int64),
                     np.mean(b, axis=1, dtype=np.uint8)), c)
    check(lambda b: np.std(b % 7, axis=1, dtype=np.int16), c)


def _continued(u, v):
    a, b = \
        u * 2.0 + v, \
        v * 3.0 - u
    return a + b


def test_a_line_continued_with_a_backslash_compiles():
    """The source line of an op goes into a C++ comment: one ending in a backslash
    continued the comment and swallowed the next statement, a compile error and a
    fallback (a Turing-pattern step written `U[...], V[...] = \\`)."""
    npcompile.reset()
    check(_continued, np.arange(6.0), np.ones(6))
    compiled_without_fallback()


def test_uint64_against_signed_integers_compares_exactly():
    """NumPy 2 compares uint64 with a signed integer exactly (a mixed loop): a kernel
    comparing in C turned -3 into 2**64 - 3 (fuzzer seed 9805264); NumPy 1.x compares
    in float64. Both are the installed NumPy's."""
    a = np.array([0, 5, 2**63 + 7, 9], np.uint64)
    c = np.array([-3, 4, -1, 9], np.int16)
    check(lambda a, c: (a >= c, a < c * 2, np.sum(a, keepdims=True) >= c), a, c)


SCALARS = [np.inf, -np.inf, np.nan, 1e20, -3.7, 2.5, np.float64(np.inf), np.float32(np.nan),
           np.float32(-3.5), 1 + 0j]


@pytest.mark.parametrize("dtype", ["int32", "int64", "uint8", "bool"])
@pytest.mark.parametrize("value", SCALARS, ids=repr)
def test_a_float_scalar_written_into_an_integer_array(dtype, value):
    """NumPy converts a scalar as a Python number (inf: OverflowError, NaN: ValueError,
    1e20: too large; NumPy 2: -3.7 out of bounds for uint8), not as an array cast, which
    the kernel's write did (fuzzer seed 5908995: `a[::2] = np.floor(np.inf)` into int32
    wrote INT_MIN where NumPy raises). In place arguments are compared too."""
    def sliced(a, b):
        a[::2] = value
        return a * 2 + b

    def element(a, b):
        a[1] = value
        return a + b

    def filled(a, b):
        a.fill(value)
        return a + b

    def masked(a, b):
        a[b > 0] = value
        return a - b

    a = make((6,), dtype, 1)
    for fn in (sliced, element, filled, masked):
        check(fn, a, np.arange(6) - 2)


def test_a_float_scalar_made_in_the_trace_written_into_an_integer_array():
    def fn(a, x):
        a[::2] = np.floor(x.sum())   # a NumPy float64 scalar: converted as a number
        return a + 1

    # (device="cuda": a reduction's scalar is a 0-d DeviceArray, written as an array
    # cast, as NumPy writes a 0-d array: inf gives INT_MIN there, not NumPy's error)
    values = [np.array([1.5, 2.0])] + ([np.array([np.inf, 1.0]), np.array([np.nan])]
                                       if DEVICE != "cuda" else [])
    for x in values:
        check(fn, np.zeros(4, np.int64), x)
    # a 0-d array is cast as an array (INT_MIN for inf, as NumPy's cast gives): no
    # error, and the write stays compiled
    def from_0d(a, x):
        a[::2] = np.floor(x)
        return a + 1

    check(from_0d, np.zeros(4, np.int64), np.array(2.5))
    compiled_without_fallback()


def test_a_float_constant_written_into_an_integer_array_stays_compiled():
    def fn(a, b):
        a[::2] = -3.7
        a[1] = 2.5
        return a * 2 + b

    check(fn, np.zeros(6, np.int32), np.arange(6))
    compiled_without_fallback()


def test_an_error_a_kernel_flags_leaves_the_callers_arrays_as_numpy_does():
    """NumPy raises at the negative integer power before the masked write runs; the
    fused kernels run both and flag the power, and the graph runs again in NumPy from
    the caller's arrays as they were (traced writes land only after a run succeeds, and
    copies are kept where a run may stop after writing: ProgramBase.may_stop_midway).
    An array that is not traced (long double; float16 was, fuzzer seed 5915740) is written
    by NumPy as the trace goes, before the power's error surfaces at the end."""
    def fn(a, b):
        t = a ** a
        b[b > 0] = 2.0
        return t + 1

    a = np.array([3, -2, 4])
    b = np.array([1.5, -1.0, 7.0])
    with pytest.raises(ValueError):
        fn(a.copy(), b.copy())
    jitted = npcompile.jit(fn, choose=False)
    for _ in range(2):
        mine = b.copy()
        with pytest.raises(ValueError):
            jitted(a, mine)
        np.testing.assert_array_equal(mine, b)
    good = np.array([3, 2, 4])
    mine = b.copy()
    check(fn, good, mine)
    compiled_without_fallback()


def test_a_power_error_comes_before_writes_to_arrays_numpy_runs():
    """A long double argument is not traced: NumPy writes it as the code runs, while a
    power computed in the trace was checked only at the flush, after the write (fuzzer
    seed 5915740, with float16, which is traced now). Beside such arrays the exponent is
    computed where NumPy raises."""
    def fn(a, h):
        t = a ** (a.T - 5)
        h[h > 0] = 2
        return t

    a = np.array([3, 7, 9])
    h = np.array([1.5, -3.0, 86.06], np.longdouble)
    mine = h.copy()
    with pytest.raises(ValueError):
        npcompile.jit(fn, choose=False)(a, mine)
    np.testing.assert_array_equal(mine, h)
    rep = npcompile.report()
    assert any("may be negative" in b["reason"] for b in rep["graph_breaks"])
    # the same function with every argument traced keeps one graph
    npcompile.reset()
    check(fn, np.array([6, 7, 9]), h.astype(np.float32))
    compiled_without_fallback()


@pytest.mark.parametrize("n", [1, 3])
def test_a_python_int_out_of_the_dtype_written_into_a_slice(n):
    """`a[:] = 300` of int8: NumPy 2 raises OverflowError, NumPy 1 warns and wraps; the
    graph's cast wrapped it silently (the fuzzer's seed 5962075 under NumPy 2.4, with
    `a[::2] = 2**40` of a one-element array)."""
    def whole(a):
        a[:] = 300
        return a

    def strided(a):
        a[::2] = 2**40
        return (a,)

    def numpy_scalar(a):
        # a NumPy integer scalar: NumPy 2 writes it as a Python int too (seed 8505378)
        a[::2] = np.abs(2**53 + 1)
        return (a,)
    for fn in (whole, strided, numpy_scalar):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            check(fn, np.zeros(n, np.int8))


@pytest.mark.parametrize("dtype", [np.float64, np.int64, np.float16, np.bool_])
@pytest.mark.parametrize("name", ["var", "std"])
def test_var_in_a_narrower_float_dtype_squares_numpys_deviations(name, dtype):
    """np.var(x, dtype=np.float32) of a float64 x: NumPy's deviations x - mean are
    float64 (the promotion of x and a float32 mean), squared in float64 and summed in
    float32; the kernel cast x to float32 first, and a float64 element's variance came
    out 0.0 where NumPy's is (x - float32(x))**2 (fuzzer seed 103773)."""
    fn = getattr(np, name)
    x = (np.random.default_rng(3).standard_normal((4, 3)) * 10 + 0.1).astype(dtype)
    for arg, axis in ((x[:1, 0], None), (x, 0), (x, None)):
        f = npcompile.jit(lambda a: fn(a, axis=axis, dtype=np.float32), device=DEVICE,
                          choose=False)
        # (in units of float32 rounding: 0.0 against 3.7e-18 is no rounding difference)
        same(f(arg.copy()), fn(arg, axis=axis, dtype=np.float32), ulp=8)
        compiled_without_fallback()


def _divided(a, b):
    return (a / b + 1.0) * 2.0


def _divided_in_scope(a, b):
    y = a * 2.0
    with np.errstate(divide="raise"):
        return (a / b + y) * 2.0


def test_floating_point_errors_raise_as_in_numpy_under_errstate_raise():
    """Compiled kernels test no floating-point flags: under np.errstate(divide="raise")
    a call of them returned inf where NumPy raises FloatingPointError. Such a call now
    runs as plain NumPy (a fallback in the report), as does a function whose own code
    enters such a scope; under "ignore" and "warn" the call stays compiled."""
    a, b = np.ones(1000), np.zeros(1000)
    f = npcompile.jit(_divided, device=DEVICE, choose=False)
    with np.errstate(divide="ignore"):
        same(f(a, b), _divided(a, b))
    compiled_without_fallback()
    for mode in ("raise", "call"):
        with np.errstate(divide=mode, call=lambda *e: (_ for _ in ()).throw(ValueError())):
            with pytest.raises(FloatingPointError if mode == "raise" else ValueError):
                f(a, b)
    reasons = [r["reason"] for r in npcompile.report()["fallbacks"]]
    assert any('divide="raise" in force at the call' in r for r in reasons), reasons
    with np.errstate(divide="ignore"):
        same(f(a, b + 1), _divided(a, b + 1))      # compiled again
    g = npcompile.jit(_divided_in_scope, device=DEVICE, choose=False)
    with np.errstate(divide="ignore"):
        with pytest.raises(FloatingPointError):
            g(a, b)
        same(g(a, b + 1), _divided_in_scope(a, b + 1))
    assert any("in its code" in r["reason"] for r in npcompile.report()["fallbacks"])


def test_a_cell_under_errstate_raise_runs_as_numpy():
    ns = {"np": np, "a": np.ones(5), "b": np.zeros(5)}
    with np.errstate(invalid="raise"):
        with pytest.raises(FloatingPointError):
            npcompile.run_cell("c = (a - a) / b\nc.sum()", ns)
    assert "c" not in ns
    with pytest.raises(FloatingPointError):
        npcompile.run_cell("with np.errstate(over='raise'):\n    c = np.exp(a * 1000)\n", ns)
    ns2 = {"np": np, "a": np.ones(5)}
    assert npcompile.run_cell("(a * 2).sum()", ns2) == 10.0


@pytest.mark.parametrize("dtype", [np.uint64, np.uint32, np.uint16, np.int64, np.int8])
def test_fmod_by_the_largest_unsigned_value(dtype):
    """An integer fmod skipped its division where the divisor is -1 (INT_MIN % -1
    traps); an unsigned divisor at its maximum compared equal to -1, and 29 fmod
    2**64 - 1 gave 0 where NumPy gives 29 (fuzzer seed 5964243)."""
    info = np.iinfo(dtype)
    a = np.array([29, 5, info.max, info.min, 7], dtype)
    b = np.array([info.max, 3, 2, -1 if info.min else 1, info.max], dtype)
    f = npcompile.jit(lambda x, y: (np.fmod(x, y), np.remainder(x, y), x // y), device=DEVICE,
                      choose=False)
    with np.errstate(all="ignore"):
        same(f(a, b), (np.fmod(a, b), np.remainder(a, b), a // b))
    compiled_without_fallback()


@pytest.mark.parametrize("order", ["L first", "Q first"])
def test_ulonglong_and_uint64_stay_apart(order):
    """uint64 'L' and ulonglong 'Q' (int64 'l' and longlong 'q') are equal dtypes of
    equal hash, but NumPy keeps them apart: `b - 2**53` of a uint64 array is 'Q' under
    NumPy 1.x, and its sum an np.ulonglong. The trace's memos of result dtypes, keyed
    by dtype, handed one the other's (fuzzer seed 6005611: np.uint64 where NumPy gives
    np.ulonglong)."""
    b = np.arange(5, dtype=np.uint64)
    q = b.astype(np.ulonglong)
    fns = [lambda x: np.sum(x, axis=0), lambda x: x.sum(), lambda x: (x + 1)[0],
           lambda x: x * x, lambda x: x ** 2]
    pairs = [(b, q), (q, b)][order == "Q first"]
    for fn in fns:
        for x in pairs:
            f = npcompile.jit(fn, device=DEVICE, choose=False)
            exp, got = fn(x), f(x)
            same(got, exp)
            assert np.asarray(got).dtype.char == np.asarray(exp).dtype.char
    k = np.arange(5, dtype=np.longlong)
    for fn in fns:
        f = npcompile.jit(fn, device=DEVICE, choose=False)
        assert type(f(k.copy()) if np.ndim(fn(k)) == 0 else f(k)[0]) is \
            type(fn(k) if np.ndim(fn(k)) == 0 else fn(k)[0])


def test_seterr_raise_after_quiet_calls_runs_as_numpy():
    """A jitted call remembers floating-point handlings found free of raising modes
    (api/fp_errors.py); np.seterr makes a new one, which must be looked at again."""
    a, b = np.ones(1000), np.zeros(1000)
    f = npcompile.jit(_divided, device=DEVICE, choose=False)
    with np.errstate(divide="ignore"):
        for _ in range(3):
            same(f(a, b), _divided(a, b))
    old = np.seterr(divide="raise")
    try:
        with pytest.raises(FloatingPointError):
            f(a, b)
    finally:
        np.seterr(**old)
    with np.errstate(divide="ignore"):
        same(f(a, b + 1), _divided(a, b + 1))
