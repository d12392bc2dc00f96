"""An ndarray the user's code holds as plain NumPy (a global, np.array of a literal, the
result of a function the trace does not record) is written by plain NumPy, unseen by the
trace, while a graph that read it is still pending: the graph reads the values of when
it read them, as eager NumPy did (trace/tracer.py, wrap_input's snapshot). These were
wrong numbers: `b = x * a; a[0] = 5.0` gave b the 5.0."""
import numpy as np
import pytest

import npcompile
from conftest import check, make
from test_trace_loops import COMPILED

G = np.zeros(5)


def literal_written_after(x):
    a = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    b = x * a
    a[0] = 5.0
    return b + a


def untraced_maker_written_after(x):
    i = np.indices((5,))[0].astype(np.float64)   # made by NumPy outside the trace
    b = x * i
    i[1] = 7.0
    c = x - i                                     # reads the new values
    i[2] = -1.0
    return b, c, i


def global_written_after(x):
    b = x + G
    G[0] = 1.0
    return b * 2


def mask_written_between_uses(phi, f):
    red = np.indices((6, 6)).sum(0) % 2 == 0
    inner = phi[1:-1, 1:-1]
    inner[red] = 0.5 * inner[red] + 0.5 * f[red]
    red[0, 0] = False
    inner[red] -= f[red]
    return phi


def a_view_is_the_array_itself(x):
    a = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    y = x + a
    a[1] = 9.0           # after the read, and seen through the returned array
    return y, a


@pytest.mark.parametrize("fn, args", [
    (literal_written_after, (make((5,), np.float64),)),
    (untraced_maker_written_after, (make((5,), np.float64),)),
    (mask_written_between_uses, (make((8, 8), np.float64), make((6, 6), np.float64))),
    (a_view_is_the_array_itself, (make((5,), np.float64),)),
])
def test_values_as_numpy_read_them(fn, args):
    check(fn, *args)
    rep = npcompile.report()
    assert not rep["fallbacks"]
    if COMPILED:
        assert sum(c["kernels"] for c in rep["compiles"]) >= 1


def test_a_global_written_after_it_was_read():
    x = make((5,), np.float64)
    G[:] = 0.0
    want = global_written_after(x.copy())
    for _ in range(3):      # the first call traces, the later ones as the jit runs them
        G[:] = 0.0
        got = npcompile.jit(global_written_after)(x.copy())
        np.testing.assert_array_equal(got, want)
        assert G[0] == 1.0
    G[:] = 0.0
