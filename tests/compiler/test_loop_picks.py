"""min(a, b) and max(a, b) inside loop bodies (api/loop_picks.py): a traced select where
both are NumPy scalars of one dtype, the builtin otherwise; against eager NumPy, NaNs,
ties and result types included."""
import numpy as np
import pytest

import npcompile
from npcompile.api.loop_picks import pick
from npcompile.api.loop_runner import LOOP_MIN
from conftest import DEVICE, check, make

# On the device the values a loop hands to Python are 0-d DeviceArrays where eager
# NumPy has NumPy scalars (the device contract for every 0-d result); these tests
# compare NumPy's own types, on the CPU (an open gap, in issue 14's note).
pytestmark = pytest.mark.skipif(DEVICE == "cuda", reason="compares NumPy scalar types")
from test_native_loop import corpus
from test_trace_loops import COMPILED


# upwind advection with a CFL-limited step, dt = min(cfl * dx / max|u|, T - t)
advect = corpus("cfl_advection")


def clipped_steps(u, n, cap):
    step = u.max() * 0 + cap        # a NumPy scalar of u's dtype
    for _ in range(n):
        g = np.roll(u, 1) - u
        step = max(min(step + step, np.abs(g).max()), step - step // 4)
        u = u + step * g
    return u, step


def mixed_types(u, n):
    for _ in range(n):
        s = min(u.max(), 2.0)        # np.float64 or a Python float: the builtin's call
        u = u * 0.5 + s
    return u


@pytest.mark.parametrize("T", [0.0, 0.01, 0.2])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_cfl_limited_advection(T, dtype):
    u = (np.abs(make((64,), np.float64)) + 1.0).astype(dtype)
    got = check(advect, u, 0.01, 0.5, T)
    exp = advect(u.copy(), 0.01, 0.5, T)
    assert type(got[1]) is type(exp[1])


@pytest.mark.parametrize("n", [0, 1, LOOP_MIN - 1, LOOP_MIN, 30])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_nested_min_and_max_of_scalars(n, dtype):
    u = make((16,), dtype)
    cap = dtype(1) if dtype is np.int64 else dtype(0.01)
    got = check(clipped_steps, u, n, cap)
    assert type(got[1]) is type(clipped_steps(u.copy(), n, cap)[1])
    if COMPILED and n >= LOOP_MIN and dtype is not np.float32:
        # (float32: u.max() * 0 is a float64 in NumPy 1.x, cap a float32: two dtypes,
        # the builtin's call)
        npcompile.reset()
        npcompile.jit(clipped_steps, device=DEVICE, choose=False)(u.copy(), n, cap)
        rep = npcompile.report()
        assert rep["graph_breaks"] == [] and rep["fallbacks"] == []
        assert "one compiled body" in rep["loops"][0]["summary"]


@pytest.mark.parametrize("n", [LOOP_MIN, 20])
def test_a_python_number_against_a_scalar_is_the_builtins_call(n):
    check(mixed_types, make((5,), np.float64), n)
    check(mixed_types, np.full(5, 10.0), n)


def test_pythons_rule_on_nan_ties_and_signed_zeros():
    f = np.float64
    for a, b in [(f(np.nan), f(1.0)), (f(1.0), f(np.nan)), (f(0.0), f(-0.0)),
                 (f(-0.0), f(0.0)), (f(2.0), f(2.0))]:
        for fn in (min, max):
            def body(x, y):
                return pick(fn, x.max(), y.max())
            got = npcompile.jit(body, device=DEVICE)(np.array([a]), np.array([b]))
            exp = fn(a, b)
            assert type(got) is type(exp)
            assert (np.isnan(got) and np.isnan(exp)) or \
                (got == exp and np.signbit(got) == np.signbit(exp)), (fn, a, b, got, exp)


def test_a_min_of_the_users_own_is_called_as_it_is():
    def uses_its_own(u, n):
        min = np.minimum           # noqa: A001 - the function's own min
        for _ in range(n):
            u = min(u, u.mean()) + 1.0
        return u
    check(uses_its_own, make((6,), np.float64), 12)
    assert pick(lambda a, b: ("mine", a, b), 1, 2) == ("mine", 1, 2)


@pytest.mark.skipif(not COMPILED, reason="bodies compile on the CPU backend")
def test_the_advection_loop_compiles_once_after_its_first_iteration():
    npcompile.reset()
    u = np.abs(make((64,), np.float64)) + 1.0
    npcompile.jit(advect, device=DEVICE, choose=False)(u, 0.01, 0.5, 0.2)
    rep = npcompile.report()
    (loop,) = rep["loops"]
    # the first iteration's min(np.float64, a Python float) is the builtin's (its result
    # type hangs on the values); t is a NumPy scalar from then on, and min traced
    assert "one compiled body" in loop["summary"] and \
        "the first iteration was traced as written" in loop["summary"]
    assert len(rep["graph_breaks"]) <= 2
