"""Every NumPy ufunc of one and two inputs, on every dtype and layout, equals eager NumPy."""
import numpy as np
import pytest

from conftest import DTYPES, check, layouts, make

UNARY = [u for u in vars(np).values() if isinstance(u, np.ufunc) and u.nin == 1 and u.nout == 1
         and u.signature is None]
BINARY = [u for u in vars(np).values() if isinstance(u, np.ufunc) and u.nin == 2 and u.nout == 1
          and u.signature is None]
MULTI = [np.divmod, np.modf, np.frexp]


def _supports(ufunc, *dtypes):
    try:
        with np.errstate(all="ignore"):
            ufunc(*[np.zeros(1, d) for d in dtypes])
        return True
    except TypeError:
        return False


@pytest.mark.parametrize("ufunc", sorted(set(UNARY), key=lambda u: u.__name__), ids=lambda u: u.__name__)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_unary(ufunc, dtype):
    if not _supports(ufunc, dtype):
        pytest.skip("NumPy has no loop")
    for name, x in layouts((5, 4), dtype).items():
        check(lambda a: ufunc(a), x)


@pytest.mark.parametrize("ufunc", sorted(set(BINARY), key=lambda u: u.__name__), ids=lambda u: u.__name__)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_binary(ufunc, dtype):
    if not _supports(ufunc, dtype, dtype):
        pytest.skip("NumPy has no loop")
    xs = layouts((4, 6), dtype, seed=1)
    y = make((4, 6), dtype, seed=2)
    if ufunc in (np.left_shift, np.right_shift, np.power) and np.dtype(dtype).kind in "iu":
        y = np.abs(y) % 4
    for name, x in xs.items():
        check(lambda a, b: ufunc(a, b), x, y)
        check(lambda a, b: ufunc(b, a), x, y)
    # broadcasting against a row, a column and a 0-d array
    check(lambda a, b: ufunc(a, b[0]), xs["contiguous"], y)
    check(lambda a, b: ufunc(a[:, :1], b), xs["contiguous"], y)
    check(lambda a, b: ufunc(a, b[0, 0]), xs["contiguous"], y)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_mixed_dtypes_promote_as_numpy(dtype):
    x = make((7,), dtype)
    for other in (np.int8, np.uint8, np.int64, np.uint64, np.float32, np.float64, np.bool_):
        y = make((7,), other, seed=3)
        check(lambda a, b: a + b, x, y)
        check(lambda a, b: a * b - a, x, y)


@pytest.mark.parametrize("scalar", [2, -3, 300, 2.5, True, 1e300, np.float32(1.5), np.int64(7),
                                    np.uint8(200), -1, 0.5])
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_python_and_numpy_scalars(dtype, scalar):
    x = make((6,), dtype)
    for f in (lambda a: a + scalar, lambda a: scalar * a, lambda a: a > scalar,
              lambda a: np.maximum(a, scalar)):
        check(f, x)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_operators_and_inplace(dtype):
    x = make((3, 5), dtype, seed=4)
    y = make((3, 5), dtype, seed=5)
    kind = np.dtype(dtype).kind
    ops = [lambda a, b: a + b, lambda a, b: a - b if kind != "b" else a ^ b,
           lambda a, b: a * b, lambda a, b: a < b, lambda a, b: a == b, lambda a, b: a != b,
           lambda a, b: a >= b, lambda a, b: -a if kind not in "bu" else ~a,
           lambda a, b: abs(a), lambda a, b: a ** 2, lambda a, b: a & b if kind in "biu" else a]
    if kind in "iuf":
        ops += [lambda a, b: a // (b + (b == 0)), lambda a, b: a % (b + (b == 0)),
                lambda a, b: a / (b + (b == 0)), lambda a, b: divmod(a, b + (b == 0))]
    for f in ops:
        check(f, x, y)

    def inplace(a, b):
        a += b
        a *= b
        return a
    if kind != "b":
        check(inplace, x, y)


@pytest.mark.parametrize("ufunc", MULTI, ids=lambda u: u.__name__)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64],
                         ids=lambda d: np.dtype(d).name)
def test_two_output_ufuncs(ufunc, dtype):
    if not _supports(ufunc, *([dtype] * ufunc.nin)):
        pytest.skip("NumPy has no loop")
    x = make((9,), dtype) + 1
    y = make((9,), dtype, seed=7)
    y[y == 0] = 3
    check(lambda a, b: ufunc(*(a, b)[:ufunc.nin]), x, y)


def test_nan_propagation_and_floor_division_signs():
    x = np.array([1.0, np.nan, -3.0, 0.0, -0.0, np.inf, -7.5])
    y = np.array([np.nan, 2.0, 2.0, -0.0, 1.0, -np.inf, 2.0])
    for f in (np.maximum, np.minimum, np.fmax, np.fmin, np.floor_divide, np.remainder,
              np.fmod, np.copysign, np.arctan2, np.hypot, np.power):
        check(lambda a, b: f(a, b), x, y)
    i = np.array([-7, 7, -7, 7, 0], np.int32)
    j = np.array([2, -2, -2, 2, 3], np.int32)
    check(lambda a, b: (a // b, a % b, np.fmod(a, b)), i, j)


def test_integer_overflow_wraps_as_numpy():
    x = np.array([120, 127, -128, 100], np.int8)
    check(lambda a: a + a + 10, x)
    u = np.array([250, 3, 255], np.uint8)
    check(lambda a: a * 3 - 7, u)


def test_zero_d_and_empty():
    for dt in (np.float64, np.int32, np.bool_):
        check(lambda a: a + 1, np.array(3, dt))
        check(lambda a: np.sin(a) * 2, np.array(0.5))
        check(lambda a: a * 2 + a, np.zeros((0,), dt))
        check(lambda a: a * 2 + a, np.zeros((3, 0), dt))


def test_out_argument_into_traced_array():
    def f(a, b, c):
        np.add(a, b, out=c)
        np.multiply(c, 2, out=c)
        return c
    check(f, make((4,), np.float64), make((4,), np.float64, 1), np.zeros(4))

    def g(a, b):
        return np.subtract(a, b, out=a)
    check(g, make((3, 3), np.int64), make((3, 3), np.int64, 2))


def test_ufunc_dtype_and_casting_keywords():
    x = make((5,), np.int32)
    check(lambda a: np.add(a, 1, dtype=np.float32), x)
    check(lambda a: np.sqrt(a, dtype=np.float32), np.abs(x))
    check(lambda a: np.multiply(a, 2.5, casting="unsafe", dtype=np.int32), x)
