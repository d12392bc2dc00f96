"""In-place updates and masked assignment keep NumPy's aliasing semantics."""
import numpy as np

from conftest import check, make


def test_views_share_writes():
    def f(x):
        v = x[1:]
        v += 1           # writes into x
        w = x[::2]
        w *= 2           # and again, through another view
        return x, v, w
    check(f, make((7,), np.float64))

    def g(x, y):
        x[1:3] += y[:2]
        x[:, 0] = 5
        x[0] = y
        return x.sum()
    check(g, make((4, 3), np.int64), make((3,), np.int64, 1))


def test_inplace_reads_old_values_on_overlap():
    def f(x):
        x[1:] += x[:-1]
        return x
    check(f, make((8,), np.int32))

    def g(x):
        x[::-1] = x
        return x
    check(g, make((5,), np.float64))


def test_masked_assignment_and_fill():
    def f(x):
        x[x < 0] = 0
        y = x * 2
        y[y > 10] = -1.5
        return x, y
    check(f, make((6, 5), np.float64))

    def g(x):
        x.fill(3)
        return x + 1
    check(g, make((3,), np.int16))


def test_inplace_casting_rules():
    def f(x, y):
        x += y        # float into int: NumPy raises UFuncTypeError
        return x
    check(f, make((4,), np.int32), make((4,), np.float64))

    def g(x, y):
        x[...] = y    # assignment casts unsafely
        x **= 2
        return x
    check(g, make((4,), np.int32), make((4,), np.float64))


def test_scalar_results_rebind_not_mutate():
    def f(x):
        s = x.sum()
        t = s
        s += 1
        return s, t
    check(f, make((5,), np.float64))


def test_aliasing_arguments_fall_back_exactly():
    def f(a, b):
        a += 1
        return b * 2
    base = make((6,), np.float64)
    import npcompile
    x = base.copy()
    got = npcompile.jit(f)(x, x[2:])
    y = base.copy()
    exp = f(y, y[2:])
    assert np.array_equal(got, exp) and np.array_equal(x, y)


def test_read_only_broadcast_view_refuses_write():
    def f(x):
        b = np.broadcast_to(x, (3, 4))
        b[0, 0] = 1
        return b
    check(f, make((4,), np.float64))


def test_reshape_copy_is_not_a_view():
    def f(x):
        y = x.T.reshape(-1)   # a copy in NumPy
        y[0] = 100
        z = x.reshape(-1)     # a view
        z[1] = -100
        return x, y, z
    check(f, make((3, 4), np.float64))

    def g(x):
        t = x.T * 2           # F-ordered result in NumPy
        r = t.reshape(-1)     # so this is a copy there
        r[0] = 99
        return t, r
    check(g, make((3, 4), np.float64))
