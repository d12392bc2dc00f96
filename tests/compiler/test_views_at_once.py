"""An indexed loop's views made at once (api/loop_runner._views_at_once): where every
view moves by one stride per iteration, the C++ loop takes them from a list made before
it; where an index wraps, a window is clipped or an index is not affine in the loop
variable, they are made per iteration. Values and in-place arguments are NumPy's."""
import numpy as np
import pytest

import npcompile
from npcompile.api import loop_runner
from conftest import check, make
from test_trace_loops import CPU_KERNELS

pytestmark = CPU_KERNELS


@pytest.fixture(autouse=True)
def indexed_bodies(monkeypatch):
    """The indexed loop's body compiled once, as where no loop nest takes the loop (a
    scalar loop nest takes float64 rows whole)."""
    monkeypatch.setenv("NPC_NATIVE_LOOPS", "0")


def rows(u):
    for i in range(1, u.shape[0]):
        u[i] = 0.5 * (u[i - 1] + u[i])
    return u


def wrapping(u):
    """u[i - 3] is the end of u for i < 3: not one stride apart there."""
    for i in range(0, u.shape[0]):
        u[i] = u[i] + 0.25 * u[i - 3]
    return u


def clipped_window(x, w):
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = np.sum(x[i:i + w] * 0.5) + i
    return out


def strided_index(x, y):
    for t in range(x.shape[0] // 2):
        y[t] = x[2 * t] * 3.0 + y[t - 1]
    return y


def columns(u, w):
    for j in range(1, u.shape[1]):
        u[1:, j] = w * u[1:, j - 1] + (1 - w) * u[:-1, j]
    return u


@pytest.fixture
def made():
    """Calls of _views_at_once: (first loop value, whether it made the views)."""
    got = []
    real = loop_runner._views_at_once

    def spy(site, values, fixed):
        r = real(site, values, fixed)
        got.append((values[0], r is not None))
        return r
    loop_runner._views_at_once = spy
    yield got
    loop_runner._views_at_once = real


@pytest.mark.parametrize("n", [9, 40])
def test_rows_and_columns_take_views_made_at_once(made, n):
    check(rows, make((n, 6), np.float64))
    check(columns, make((5, n), np.float32), 0.3)
    assert made and all(ok for _, ok in made)


def test_a_wrapping_index_makes_views_per_iteration(made):
    check(wrapping, make((30, 4), np.float64))
    # from i = 3 on the views are one stride apart; a run starting before wraps
    assert made and all(ok == (first >= 3) for first, ok in made), made


def test_a_clipped_window_makes_views_per_iteration():
    check(clipped_window, make((40,), np.float64), 5)


def test_a_product_of_the_index_is_not_affine(made):
    check(strided_index, make((60,), np.float64), make((30,), np.float64))
    assert not made         # x[2 * t]: never tried at once


def test_views_at_once_land_writes_once():
    u = make((50, 3), np.float64)
    expect = rows(u.copy())
    f = npcompile.jit(rows, choose=False)
    got = f(u)
    np.testing.assert_array_equal(got, expect)
    np.testing.assert_array_equal(u, expect)
    assert any("in one C++ loop" in lp["summary"] for lp in npcompile.report()["loops"])
