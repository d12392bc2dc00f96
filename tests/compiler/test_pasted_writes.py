"""Writes to a box of at least half an array (fusion/paste.py): the array's next value is
computed by a kernel, the box from the written value and the rest from the old array,
where it was a NumPy step (graph/calls.update) between kernels. Checked against eager
NumPy on values, dtypes and the caller's arrays, and on which writes stay NumPy's."""
import numpy as np
import pytest

import npcompile

from conftest import check, make
from test_trace_loops import COMPILED, CPU_KERNELS, compiled_without_fallback


def interior_1d(u, r):
    u[1:-1] = u[1:-1] + r * (u[2:] - 2 * u[1:-1] + u[:-2])
    return u


def interior_in_place_with_edges(u, r):
    u[1:-1] += r * (u[2:] - 2 * u[1:-1] + u[:-2])
    u[0] = u[1]          # a single element: NumPy's step
    u[-1] = 0
    return u


def jacobi_interior(p, f):
    p[1:-1, 1:-1] = 0.25 * (p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:] - f)
    return p


def columns_from_a_row(x, row):
    x[:, 1:] = row[1:]   # broadcast along the rows
    return x


def versions_read_between(x):
    x[2:] = 7.5
    y = x * 2            # reads the version after the first write
    x[:-1] = x[1:] + 1
    return x, y


def a_sum_into_most(x):
    s = x.sum()
    x[:-1] = s
    return x


def through_a_transpose(x):
    x.T[1:] = x[0, 1:, None] * 3
    return x


def red_black_half_sweep(phi, mask, g):
    inner = phi[1:-1, 1:-1]
    inner[mask] = (1 - 1.5) * inner[mask] + 1.5 * g[mask]
    return phi


def old_value_kept(x):
    old = x.copy()
    x[1:] = x[:-1] * 2
    return old + x


def shifted_onto_itself(a):
    b = a * 1.0
    b[1:, 1:] = b[:-1, :-1] + b[1:, 1:]
    return b


def ufunc_out_into_a_slice(x):
    x[1:] *= 2
    np.add(x[2:], 1, out=x[2:])
    return x


def floats_into_ints(x, y):
    x[1:] = y[1:]        # NumPy's unsafe cast truncates: its step
    return x


def last_axis_of_three(x):
    x[:, :, 1:] = x[:, :, :-1] - x[:, :, 1:]
    return x.sum(axis=2)


def a_zero_d_value(x, v):
    x[1:-1] = v
    return x


def every_other(x):
    x[::2] = 0           # a step of 2: NumPy's
    return x


def then_the_whole(x):
    x[1:4] = -1
    x[:] = x * 2
    return x


def ints_into_a_box(x):
    x[1:, :] = x[:-1, :] * 3 + 1
    return x


R = np.random.default_rng(4)
CASES = [
    (interior_1d, lambda: (make((100,), np.float64), 0.1)),
    (interior_in_place_with_edges, lambda: (make((100,), np.float64), 0.1)),
    (jacobi_interior, lambda: (make((26, 26), np.float64), make((24, 24), np.float64))),
    (columns_from_a_row, lambda: (make((5, 6), np.float64), make((6,), np.float64))),
    (versions_read_between, lambda: (make((10,), np.float64),)),
    (a_sum_into_most, lambda: (make((10,), np.float64),)),
    (through_a_transpose, lambda: (make((4, 5), np.float64),)),
    (red_black_half_sweep, lambda: (make((26, 26), np.float64), R.random((24, 24)) > 0.5,
                                    make((24, 24), np.float64))),
    (old_value_kept, lambda: (make((50,), np.float64),)),
    (shifted_onto_itself, lambda: (make((6, 7), np.float64),)),
    (ufunc_out_into_a_slice, lambda: (make((20,), np.float32),)),
    (floats_into_ints, lambda: (np.arange(10), make((10,), np.float64))),
    (last_axis_of_three, lambda: (make((3, 4, 5), np.float64),)),
    (a_zero_d_value, lambda: (make((10,), np.float64), np.float64(3.5))),
    (every_other, lambda: (make((10,), np.float64),)),
    (then_the_whole, lambda: (make((6,), np.int32),)),
    (ints_into_a_box, lambda: (make((7, 3), np.int64),)),
]


@pytest.mark.parametrize("fn,args", CASES, ids=[c[0].__name__ for c in CASES])
def test_values_dtypes_and_the_callers_arrays(fn, args):
    check(fn, *args())
    # (these two are NumPy's writes alone: no kernel to build)
    compiled_without_fallback(kernels=fn not in (floats_into_ints, every_other))


def _numpy_writes(fn, *args):
    npcompile.reset()
    npcompile.jit(fn, device="cpu")(*args)
    return [d for g in npcompile.report()["fusion_graphs"] for d in g["decisions"]
            if d.startswith("setitem") and "runs in NumPy" in d]


@CPU_KERNELS
@pytest.mark.parametrize("fn,args,left", [
    (interior_1d, (make((100,), np.float64), 0.1), 0),
    (jacobi_interior, (make((26, 26), np.float64), make((24, 24), np.float64)), 0),
    (red_black_half_sweep, (make((26, 26), np.float64), R.random((24, 24)) > 0.5,
                            make((24, 24), np.float64)), 0),
    (interior_in_place_with_edges, (make((100,), np.float64), 0.1), 2),   # the edges
    (every_other, (make((10,), np.float64),), 1),
    (floats_into_ints, (np.arange(10), make((10,), np.float64)), 1),
])
def test_which_writes_are_kernels(fn, args, left):
    """The box writes are computed by kernels; single elements, steps and float-to-int
    casts stay NumPy's steps."""
    assert len(_numpy_writes(fn, *args)) == left


@CPU_KERNELS
def test_a_small_part_stays_a_write_in_place():
    """A row of a 50x50 matrix per step: pasted, every step would copy the matrix."""
    def rows(A):
        A[1] = A[0] * 0.5
        A[2] = A[1] * 0.5
        A[3] = A[2] * 0.5
        return A
    assert len(_numpy_writes(rows, make((50, 50), np.float64))) == 3


def _sweeps(phi, red, black, h2f, n_iter):
    for _ in range(n_iter):
        for mask in (red, black):
            nb = phi[:-2, 1:-1] + phi[2:, 1:-1] + phi[1:-1, :-2] + phi[1:-1, 2:]
            inner = phi[1:-1, 1:-1]
            inner[mask] = 0.5 * inner[mask] + 0.125 * (nb + h2f)[mask]
    return phi


@pytest.mark.skipif(not COMPILED, reason="needs compiled kernels")
def test_a_red_black_loop_body_has_no_numpy_step():
    """SOR's loop body compiled once: its masked writes through a view are kernels, so
    its C++ loop calls no Python per iteration."""
    n = 16
    I, J = np.indices((n, n))
    red = (I + J) % 2 == 0
    args = (make((n + 2, n + 2), np.float64), red, ~red, make((n, n), np.float64), 12)
    check(_sweeps, *args)
    compiled_without_fallback()
    assert _numpy_writes(_sweeps, *args) == []
