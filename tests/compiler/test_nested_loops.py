"""Nests of loops (api/loop_rewrite.py): a time loop whose body holds a pseudo-time loop
(the pressure solve of a cavity-flow code) and a loop over a literal tuple of arrays
(`for Z in (U, V):` applying boundary conditions). Against eager NumPy: values, dtypes,
shapes, in-place arguments and errors; and the compiled path really ran: the inner loop
is one compiled body, the time loop's body straight-line once the tuple loop is written
out."""
import inspect

import numpy as np
import pytest

import npcompile
from npcompile.api.loop_runner import LOOP_MIN
from conftest import check, make
from test_trace_loops import CPU_KERNELS


@pytest.fixture(autouse=True)
def _bodies(bodies_compiled_once):
    """Small arrays: the body compiled once, not the loop nest that would take them."""


LENGTHS = [0, 1, LOOP_MIN - 1, LOOP_MIN, 20]


def pressure_time_loop(p, b, nt, nit):
    """Barba-style: the outer loop writes slices (a native nest is tried first, and
    declines at run time: u is an array used as a number), the inner loop is straight
    line."""
    u = np.zeros_like(p)
    for n in range(nt):
        for q in range(nit):
            pn = p.copy()
            p[1:-1, 1:-1] = 0.25 * (pn[1:-1, 2:] + pn[1:-1, :-2] + pn[2:, 1:-1] +
                                    pn[:-2, 1:-1] - b[1:-1, 1:-1])
            p[:, -1] = p[:, -2]
            p[0, :] = p[1, :]
        u = u + 0.1 * p
    return u, p


def boundaries_by_tuple(U, V, n, dt):
    for i in range(n):
        Uc = U[1:-1, 1:-1]
        Vc = V[1:-1, 1:-1]
        U[1:-1, 1:-1], V[1:-1, 1:-1] = Uc + dt * (Uc - Uc ** 3 - Vc), Vc + dt * (Uc - Vc)
        for Z in (U, V):
            Z[0, :] = Z[1, :]
            Z[-1, :] = Z[-2, :]
            Z[:, 0] = Z[:, 1]
            Z[:, -1] = Z[:, -2]
    return U, V


def tuple_rebound(U, V, n):
    """The tuple's name V is rebound in the inner body: the tuple held the old V, so the
    loop is not written out."""
    for i in range(n):
        for Z in (U, V):
            Z[0] = Z[1] * 0.5
            V = V + 1.0
    return U, V


def tuple_target_in_tuple(U, V, n):
    """The target is one of the tuple's names: `for U in (V, U)` reads the old U."""
    for i in range(n):
        for U in (V, U):
            U[0] = U[0] + 1.0
    return U, V


def tuple_unbound(U, n, flag):
    """V unbound: NumPy raises before the first iteration touches U."""
    if flag:
        V = U * 2.0
    for i in range(n):
        for Z in (U, V):
            Z[0] = Z[0] + 1.0
    return U


def tuple_mixed_dtypes(A, B, n):
    for i in range(n):
        for Z in [A, B]:
            Z[1:] = Z[:-1] + Z[1:]
    return A, B, Z if n else None


def _unit(shape, seed):
    """Values in [0, 1), as a reaction-diffusion state (a cube of make's stays finite)"""
    return np.random.default_rng(seed).random(shape)


def _line(fn, start):
    """The line number of fn's first line that starts with `start` (what the report
    says of a loop)."""
    lines, first = inspect.getsourcelines(fn)
    return next(first + k for k, text in enumerate(lines) if text.strip().startswith(start))


def _summaries(fn, *args):
    npcompile.reset()
    npcompile.jit(fn, choose=False)(*args)
    rep = npcompile.report()
    return [lp["summary"] for lp in rep["loops"]], rep["fallbacks"]


@pytest.mark.parametrize("nt", LENGTHS)
def test_time_loop_lengths(nt):
    check(pressure_time_loop, make((9, 11), np.float64), make((9, 11), np.float64, 1), nt, 20)


@pytest.mark.parametrize("nit", LENGTHS)
def test_pressure_loop_lengths(nit):
    check(pressure_time_loop, make((9, 11), np.float64), make((9, 11), np.float64, 1), 3, nit)
    check(pressure_time_loop, make((6, 5), np.float32), make((6, 5), np.float32, 1), 2, nit)


@CPU_KERNELS
def test_the_pressure_loop_is_one_compiled_body():
    """In a time loop too short to be a compiled body itself (runs as written), the inner
    loop is one."""
    loops, fallbacks = _summaries(pressure_time_loop, make((9, 11), np.float64),
                                  make((9, 11), np.float64, 1), 3, 20)
    inner = [s for s in loops if s.startswith(f"line {_line(pressure_time_loop, 'for q')}:")]
    assert inner and all("20 iterations, one compiled body" in s for s in inner), loops
    assert not fallbacks


@pytest.mark.parametrize("nit", LENGTHS)
def test_time_loop_with_inner_loop_lengths(nit):
    """The time loop long enough to run as a compiled body, its sweeps written out in it
    (none, one, many)."""
    check(pressure_time_loop, make((9, 11), np.float64), make((9, 11), np.float64, 1),
          LOOP_MIN + 3, nit)


@CPU_KERNELS
def test_the_time_loop_holding_the_pressure_loop_is_one_compiled_body():
    """The inner loop runs as Python while the time step's body is traced: the step is
    one body compiled once, its sweeps written out in it (before, each time step traced
    and flushed its whole body again: cavity_flow 0.70x NumPy). Four times the time
    steps compile nothing more."""
    compiles = []
    for nt in (LOOP_MIN + 3, 4 * (LOOP_MIN + 3)):
        loops, fallbacks = _summaries(pressure_time_loop, make((9, 11), np.float64),
                                      make((9, 11), np.float64, 1), nt, 6)
        outer = [s for s in loops if s.startswith(f"line {_line(pressure_time_loop, 'for n')}:")]
        assert outer and f"{nt} iterations, one compiled body" in outer[-1], loops
        assert not fallbacks
        compiles.append(len(npcompile.report()["compiles"]))
    assert compiles[0] == compiles[1] >= 1


def inner_variable_read_after(u, nt, nit):
    """q is bound only by the inner loop and read after the time loop: with nit 0 it
    keeps the value it had before."""
    q = -1
    for n in range(nt):
        for q in range(nit):
            u = u + 1
    return u, q


def inner_range_with_step(u, nt):
    for n in range(nt):
        for q in range(5, 0, -2):
            u = u * 0.5 + q
    return u


def inner_count_grows(u, nt):
    """The inner loop's length is a number the time step changes: no one body."""
    m = 1
    for n in range(nt):
        for q in range(m):
            u = u + 1.0
        m = m + 1
    return u, m


def inner_carries_a_number(u, nt, nit):
    s = 0.0
    for n in range(nt):
        for q in range(nit):
            s = s + u.sum()
            u = u * 0.9
    return u, s


def inner_in_place(a, nt, nit):
    for n in range(nt):
        for q in range(nit):
            a[1:] += a[:-1] * 0.1
        a[0] = a[-1]
    return a


@pytest.mark.parametrize("nt", [1, LOOP_MIN + 2])
def test_inner_loop_edges(nt):
    for nit in (0, 3):
        check(inner_variable_read_after, make((3,), np.float64), nt, nit)
        check(inner_carries_a_number, make((4,), np.float32), nt, nit)
        check(inner_in_place, make((6,), np.float64), nt, nit)
    check(inner_range_with_step, make((4,), np.float64), nt)
    check(inner_count_grows, make((3,), np.float64), nt)


def minibatch_epochs(X, y, epochs, bs, seed):
    """A body the outer runner cannot replay (a Generator draw per epoch) around a
    mini-batch loop."""
    rng = np.random.default_rng(seed)
    w = np.zeros(X.shape[1])
    b = 0.0
    for ep in range(epochs):
        perm = rng.permutation(X.shape[0])
        for s in range(0, X.shape[0], bs):
            idx = perm[s:s + bs]
            g = X[idx] @ w + b - y[idx]
            w -= 0.01 * (X[idx].T @ g) / len(idx)
            b -= 0.01 * g.mean()
    return w, b


@pytest.mark.parametrize("epochs", [1, LOOP_MIN + 4])
def test_epochs_around_a_minibatch_loop(epochs):
    check(minibatch_epochs, make((48, 3), np.float64), make((48,), np.float64, 1), epochs, 4, 0)


@CPU_KERNELS
def test_an_inner_loop_traced_as_written_is_a_compiled_body():
    """Where the time loop's body cannot be replayed, its iterations are traced as
    written with the inner loop rewritten like any loop: one compiled body, not 12
    iterations written out per epoch."""
    loops, _ = _summaries(minibatch_epochs, make((48, 3), np.float64),
                          make((48,), np.float64, 1), LOOP_MIN + 4, 4, 0)
    outer = [s for s in loops if s.startswith(f"line {_line(minibatch_epochs, 'for ep')}:")]
    assert outer and "traced as written" in outer[-1], loops   # the case this is about
    inner = [s for s in loops if s.startswith(f"line {_line(minibatch_epochs, 'for s')}:")]
    assert len(inner) >= 2 and all("12 iterations, one compiled body" in s for s in inner), \
        loops


@pytest.mark.parametrize("n", LENGTHS)
def test_tuple_loop_lengths(n):
    check(boundaries_by_tuple, _unit((8, 9), 0), _unit((8, 9), 1), n, 0.01)
    check(tuple_mixed_dtypes, make((7,), np.float32), make((7,), np.int64, 1), n)


@CPU_KERNELS
@pytest.mark.parametrize("n", [LOOP_MIN, 20])
def test_the_time_loop_over_a_tuple_is_one_compiled_body(n):
    loops, fallbacks = _summaries(boundaries_by_tuple, _unit((8, 9), 0), _unit((8, 9), 1),
                                  n, 0.01)
    assert len(loops) == 1 and f"{n} iterations, one compiled body" in loops[0], loops
    assert not fallbacks


@pytest.mark.parametrize("n", [0, 1, LOOP_MIN, 20])
def test_tuple_loops_not_written_out_stay_exact(n):
    check(tuple_rebound, make((5,), np.float64), make((5,), np.float64, 1), n)
    check(tuple_target_in_tuple, make((5,), np.float64), make((5,), np.float64, 1), n)
    check(tuple_unbound, make((5,), np.float64), n, True)
    check(tuple_unbound, make((5,), np.float64), n, False)   # UnboundLocalError when n


def test_an_unbound_name_raises_before_any_iteration():
    U = np.ones(4)
    with pytest.raises(UnboundLocalError):
        npcompile.jit(tuple_unbound)(U, LOOP_MIN, False)
    assert (U == 1.0).all()     # the first iteration did not run
