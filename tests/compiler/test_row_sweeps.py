"""Row-by-row sweeps (Gauss-Seidel, SOR) as course notes write them: `u[i, 1:-1] = ...
u[i - 1, 1:-1] ... u[i, :-2]`, alone, in a time loop, and inside a `while err > tol`
convergence loop. The row `u[i, :]` is one view handed to the compiled body and the fixed
slices are taken inside it (api/loop_rewrite._fixed_slices_inside): two overlapping
views of the same row broke the graph ('alias') at every traced iteration. A while loop
may hold the sweep as an inner loop, written out in its body: one body compiled once
(a held-out SOR program took 19.5 s cold, one graph and a break per sweep). Against eager
NumPy (values, dtypes, in-place arguments), and the compiled path really ran: no break,
no fallback, the loop report says one compiled body."""
import numpy as np
import pytest

import npcompile
from npcompile.api.loop_runner import LOOP_MIN, WRITE_OUT
from conftest import check, make
from test_nested_loops import _line
from test_trace_loops import CPU_KERNELS



@pytest.fixture(autouse=True)
def _bodies(bodies_compiled_once):
    """Small arrays: the body compiled once, not the loop nest that would take them."""


def gauss_seidel_rows(u):
    for i in range(1, u.shape[0] - 1):
        u[i, 1:-1] = 0.5 * (u[i - 1, 1:-1] + u[i, :-2])
    return u


def gauss_seidel_columns(u, w):
    """A fixed slice on the first axis, the loop index on the second."""
    for j in range(1, u.shape[1]):
        u[1:, j] = w * u[1:, j - 1] + (1 - w) * u[:-1, j]
    return u


def sor_until_converged(u, omega, tol, most):
    err = 1.0
    it = 0
    while err > tol and it < most:
        old = u.copy()
        for i in range(1, u.shape[0] - 1):
            u[i, 1:-1] = (1 - omega) * u[i, 1:-1] + omega * 0.25 * (
                u[i - 1, 1:-1] + old[i + 1, 1:-1] + u[i, :-2] + old[i, 2:])
        err = np.abs(u - old).max()
        it += 1
    return u, it, err


def while_inner_binds_read_after(u, most):
    """i is bound only by the inner loop and read after the while loop."""
    i = -1
    k = 0
    while k < most:
        for i in range(1, u.shape[0] - 1):
            u[i] = u[i] + 0.5 * u[i - 1]
        k += 1
    return u, i


def _plate(n, m, dtype=np.float64):
    u = np.zeros((n, m), dtype)
    u[0, :] = 1.0
    u[:, 0] = 0.5
    return u


def _compiled(fn, *args):
    """The loop summaries, graph breaks and fallbacks of one compiled call."""
    npcompile.reset()
    npcompile.jit(fn, choose=False)(*args)
    rep = npcompile.report()
    return [lp["summary"] for lp in rep["loops"]], rep["graph_breaks"], rep["fallbacks"]


@pytest.mark.parametrize("n", [3, LOOP_MIN, 17])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_row_sweep_values(n, dtype):
    check(gauss_seidel_rows, make((n, 9), dtype))
    check(gauss_seidel_columns, make((7, n), dtype), 0.25)


@pytest.mark.parametrize("most", [0, 1, LOOP_MIN + 1, 40])
def test_sor_until_converged_values(most):
    check(sor_until_converged, _plate(12, 10), 1.5, 1e-4, most)
    check(sor_until_converged, _plate(6, 5, np.float32), 1.2, 1e-3, most)
    check(while_inner_binds_read_after, make((5, 3), np.float64), most)
    check(while_inner_binds_read_after, make((2, 3), np.float64), most)   # no inner iteration


@CPU_KERNELS
def test_a_row_sweep_is_one_compiled_body_without_breaks():
    loops, breaks, fallbacks = _compiled(gauss_seidel_rows, make((20, 20), np.float64))
    assert not breaks and not fallbacks
    assert loops and "18 iterations, one compiled body" in loops[0], loops


@CPU_KERNELS
def test_a_column_sweep_runs_in_one_cpp_loop():
    """u[:, j] and u[:, j - 1] interleave in memory but share no element
    (trace/overlap.py): no 'alias' break, and the C++ loop does not stop at them."""
    loops, breaks, fallbacks = _compiled(gauss_seidel_columns, make((30, 40), np.float64),
                                         0.25)
    assert not breaks and not fallbacks
    assert loops and "39 iterations, one compiled body" in loops[0], loops
    assert "in one C++ loop" in loops[0], loops


@CPU_KERNELS
def test_a_convergence_loop_around_a_sweep_is_one_compiled_function():
    """Of float64 rows, the while loop and its sweep are one loop nest (native_loop)."""
    where = f"line {_line(sor_until_converged, 'while')}:"
    check(sor_until_converged, _plate(16, 16), 1.5, 1e-6, 4 * (LOOP_MIN + 4))
    loops, breaks, fallbacks = _compiled(sor_until_converged, _plate(16, 16), 1.5, 1e-6,
                                         4 * (LOOP_MIN + 4))
    assert any(s.startswith(where) and "one compiled function" in s for s in loops), loops
    assert not breaks and not fallbacks


@CPU_KERNELS
def test_where_the_nest_declines_the_while_loop_is_a_body_compiled_once():
    """float32 rows (the nest's slices take float64): the nest declines when typed, and
    the while loop runs as a body compiled once, not as written."""
    where = f"line {_line(sor_until_converged, 'while')}:"
    plate = _plate(16, 16, np.float32)
    check(sor_until_converged, plate, 1.5, 1e-4, LOOP_MIN + 4)
    loops, breaks, fallbacks = _compiled(sor_until_converged, plate, 1.5, 0.0, LOOP_MIN + 4)
    outer = [s for s in loops if s.startswith(where)]
    assert any("one compiled body" in s for s in outer), loops
    assert not fallbacks


@CPU_KERNELS
def test_a_convergence_loop_around_a_sweep_compiles_once(monkeypatch):
    """Where no loop nest takes it (NPC_NATIVE_LOOPS=0, as where the nest declines), the
    while loop is the compiled body; four times the sweeps compile nothing more."""
    monkeypatch.setenv("NPC_NATIVE_LOOPS", "0")
    where = f"line {_line(sor_until_converged, 'while')}:"
    compiles = []
    for most in (LOOP_MIN + 4, 4 * (LOOP_MIN + 4)):
        loops, breaks, fallbacks = _compiled(sor_until_converged, _plate(16, 16), 1.5, 0.0,
                                             most)
        outer = [s for s in loops if s.startswith(where)]
        assert outer and f"{most} iterations, one compiled body" in outer[-1], loops
        assert "its inner loops' 14 iterations are written out in it" in outer[-1], loops
        assert not breaks and not fallbacks
        compiles.append(len(npcompile.report()["compiles"]))
    assert compiles[0] == compiles[1] >= 1


@CPU_KERNELS
def test_a_long_sweep_is_its_own_compiled_body(monkeypatch):
    """Past WRITE_OUT rows the while loop runs as written (a body written out that long
    took seconds to compile), its sweep a compiled body of its own: no break but the
    while test's, no fallback, and NumPy's values. (With no loop nest: NPC_NATIVE_LOOPS=0.)"""
    monkeypatch.setenv("NPC_NATIVE_LOOPS", "0")
    rows = WRITE_OUT + 10
    check(sor_until_converged, _plate(rows, 8), 1.5, 0.0, LOOP_MIN + 2)
    loops, breaks, fallbacks = _compiled(sor_until_converged, _plate(rows, 8), 1.5, 0.0,
                                         LOOP_MIN + 2)
    where = f"line {_line(sor_until_converged, 'for i')}:"
    inner = [s for s in loops if s.startswith(where)]
    assert inner and all(f"{rows - 2} iterations, one compiled body" in s for s in inner), loops
    outer = [s for s in loops if s.startswith(f"line {_line(sor_until_converged, 'while')}:")]
    assert outer == [f"{outer[0].split(':')[0]}: the while loop runs as written: its inner "
                     f"loops take {rows - 2} iterations, more than the {WRITE_OUT} a body "
                     f"compiled once writes out; each of them is a compiled body of its own"]
    # the while test needs its value once per iteration as written: those breaks only
    assert breaks and all(b["kind"] == "bool" for b in breaks), breaks
    assert not fallbacks


def epochs_of_batches(X, y, epochs, bs, seed):
    """Mini-batch gradient descent: a fresh permutation per epoch (a Generator's draw:
    the epoch's body cannot replay), then a loop over its batches."""
    rng = np.random.default_rng(seed)
    w = np.zeros(X.shape[1])
    for ep in range(epochs):
        perm = rng.permutation(X.shape[0])
        for s in range(0, X.shape[0], bs):
            idx = perm[s:s + bs]
            g = X[idx].T @ (X[idx] @ w - y[idx]) / len(idx)
            w -= 0.1 * g
    return w


@CPU_KERNELS
@pytest.mark.parametrize("batches", [WRITE_OUT // 2, WRITE_OUT + 8])
def test_a_for_loop_writes_out_at_most_write_out_inner_iterations(batches):
    """A for loop whose body holds an inner loop: written out in the body compiled once
    up to WRITE_OUT inner iterations; past that the loop runs as written, each inner
    loop a compiled body of its own (32 batches written out into an epoch's body were
    576 ops that failed to compile, and never replayed)."""
    rng = np.random.default_rng(4)
    X = rng.standard_normal((batches * 8, 3))
    y = X @ np.array([1.0, -2.0, 0.5])
    epochs = LOOP_MIN + 2
    check(epochs_of_batches, X, y, epochs, 8, 0)
    loops, breaks, fallbacks = _compiled(epochs_of_batches, X, y, epochs, 8, 0)
    outer = [s for s in loops if s.startswith(f"line {_line(epochs_of_batches, 'for ep')}:")]
    written = f"the loop runs as written: its inner loops take {batches} iterations, " \
              f"more than the {WRITE_OUT} a body compiled once writes out"
    if batches > WRITE_OUT:
        assert outer and all(written in s for s in outer), loops
        inner = [s for s in loops if s.startswith(f"line {_line(epochs_of_batches, 'for s')}:")]
        assert inner and all(f"{batches} iterations, one compiled body" in s for s in inner), \
            loops
    else:
        assert not any(written in s for s in outer), loops
    assert not breaks and not fallbacks, (breaks, fallbacks)
