"""While loops and `for` loops with an exit test run their settled body in one C++ loop
(StepProgram.run_loop's `until`): the condition or test runs in Python after every run,
exactly once per iteration, on the values that run made. Checked against eager NumPy on
values, scalar types, iteration counts, in-place arguments and errors, and the C++ loop
really ran (the report counts its iterations)."""
import numpy as np
import pytest

import npcompile
from conftest import DEVICE, check, make
from test_trace_loops import COMPILED
from test_while_loops import conjugate_gradient, jacobi_iteration, power_iteration, spd

CPU = pytest.mark.skipif(not COMPILED or DEVICE == "cuda",
                         reason="the C++ loop drives the CPU's compiled kernels")


def halving(x, tol):
    err = np.inf        # a Python float first, a NumPy scalar from the body on
    k = 0
    while err > tol and k < 10_000:
        x = 0.5 * x + 0.25
        err = np.abs(x - 0.5).max()
        k += 1
    return x, err, k


def _more(seen, n):
    seen.append(1)
    return len(seen) <= n


def counted_condition(x, n, seen):
    """The condition has an effect: it must run once per iteration, as in Python."""
    while _more(seen, n):
        x = x * 1.01
    return x


def in_place_until(u, tol):
    change = 1.0
    while change > tol:
        old = u.sum()
        u *= 0.5
        change = old - u.sum()
    return u, change


def failing_condition(x, at):
    k = 0
    while k < 1000:
        x = x + 1.0
        if_bad = x.max() > at       # the condition raises part-way
        k += 1 if not if_bad else 1 // 0
    return x


def raising_condition(x, stop):
    while (x.max() < stop) if x.max() < stop - 3 else 1 // 0:
        x = x + 1.0
    return x


def scalar_exit(x, tol, n):
    for i in range(n):
        y = np.sqrt(x + 1.0)
        if np.abs(y - x).max() < tol:
            return y, i
        x = y
    return x, -1


def checkerboard(s, beta, sweeps):
    black = np.indices(s.shape).sum(0) % 2 == 0
    total = []
    for _ in range(sweeps):
        for mask in (black, ~black):          # a tuple of expressions, unrolled
            nb = np.roll(s, 1, 0) + np.roll(s, -1, 0) + np.roll(s, 1, 1) + np.roll(s, -1, 1)
            s = np.where(mask & (nb * s < 0), -s, s) * beta + s * (1 - beta)
        total.append(s.mean())
    return s, np.array(total)


def pairs(a, b, n):
    for _ in range(n):
        for u, w in ((a, 0.5), (b, 0.25)):    # targets and values written out per pair
            u *= w
            u += 1.0
    return a, b


def rebinds_inside(x, n):
    y = x + 1.0
    for _ in range(n):
        for v in (x, y):    # the tuple is read once, before y is rebound below
            y = v * 0.5 + y
    return x, y


def _in_cpp(rep):
    return [lp["summary"] for lp in rep["loops"] if "in one C++ loop" in lp["summary"]]


def _ran_in_cpp(fn, *args):
    npcompile.reset()
    npcompile.jit(fn, choose=False)(*args)
    rep = npcompile.report()
    assert not rep["fallbacks"] and not rep["graph_breaks"], (rep["fallbacks"],
                                                                rep["graph_breaks"])
    got = _in_cpp(rep)
    assert got, rep["loops"]
    return int(got[0].split(" of them in one C++ loop")[0].split(", ")[-1])


@pytest.mark.parametrize("tol", [1e-3, 1e-12, 10.0])
def test_while_with_carried_numpy_scalars(tol):
    check(halving, make((30,), np.float64), tol)
    check(halving, make((30,), np.float32), np.float32(tol))


@CPU
def test_while_runs_in_one_cpp_loop(monkeypatch):
    monkeypatch.setenv("NPC_NATIVE_LOOPS", "0")     # (the body's C++ loop; a nest takes it whole)
    A = spd(30, 3)
    assert _ran_in_cpp(power_iteration, A, np.ones(30) / np.sqrt(30), 0.0, 60) >= 50
    assert _ran_in_cpp(conjugate_gradient, A, make((30,), np.float64), 0.0, 25) >= 15
    assert _ran_in_cpp(halving, make((30,), np.float64), 1e-14) >= 20


@pytest.mark.parametrize("n", [0, 1, 5, 40])
def test_the_condition_runs_once_per_iteration(n):
    seen_np, seen_npc = [], []
    ref = counted_condition(make((8,), np.float64), n, seen_np)
    got = npcompile.jit(counted_condition, choose=False)(make((8,), np.float64), n, seen_npc)
    np.testing.assert_array_equal(ref, got)
    assert len(seen_npc) == len(seen_np) == n + 1
    if COMPILED and DEVICE == "cpu" and n == 40:
        assert _in_cpp(npcompile.report())


def test_in_place_updates_and_their_count():
    check(in_place_until, make((16,), np.float64), 1e-9)


def test_errors_in_the_condition_are_pythons():
    check(raising_condition, np.zeros(5), 40.0)
    check(failing_condition, np.zeros(5), 30.0)


@pytest.mark.parametrize("n,tol", [(60, 1e-12), (60, 1e-300), (9, 0.5)])
def test_exit_loops(n, tol):
    check(scalar_exit, make((10,), np.float64) + 2.0, tol, n)


@CPU
def test_exit_loop_runs_in_one_cpp_loop():
    A = spd(20, 5) + 80.0 * np.eye(20)
    assert _ran_in_cpp(jacobi_iteration, A, make((20,), np.float64), 1e-13, 200) >= 5
    assert _ran_in_cpp(scalar_exit, make((10,), np.float64) + 2.0, 1e-13, 100) >= 20


@pytest.mark.parametrize("sweeps", [1, 8, 30])
def test_inner_loops_over_tuples_of_expressions(sweeps):
    s = np.where(make((12, 12), np.float64) > 0, 1.0, -1.0)
    check(checkerboard, s, 0.3, sweeps)
    check(pairs, make((5,), np.float64), make((5,), np.float64, seed=2), sweeps)
    check(rebinds_inside, make((5,), np.float64), sweeps)


@pytest.mark.skipif(not COMPILED or DEVICE == "cuda",
                    reason="compiled CPU path not in use (on the GPU, total.append of a 0-d "
                           "device value is not replayed)")
def test_the_outer_loop_compiles_once_with_the_tuple_loop_inside():
    s = np.where(make((12, 12), np.float64) > 0, 1.0, -1.0)
    npcompile.reset()
    npcompile.jit(checkerboard, choose=False)(s, 0.3, 30)
    rep = npcompile.report()
    assert not rep["fallbacks"] and not rep["graph_breaks"]
    outer = [lp for lp in rep["loops"] if "sweeps" in lp["text"]]
    assert outer and "30 iterations, one compiled body" in outer[0]["summary"], rep["loops"]
    assert len(rep["compiles"]) <= 3


def _count(seen, v):
    seen.append(1)
    return v


def exit_with_effect(x, tol, n, seen):
    for i in range(n):
        y = np.sqrt(x + 1.0)
        if _count(seen, np.abs(y - x).max()) < tol:
            return y, i
        x = y
    return x, -1


def python_exit(x, tol, n):
    err = 1.0
    for i in range(n):
        y = np.sqrt(x + 1.0)
        if float(np.abs(y - x).max()) + err * 0 < tol:
            break
        x = y
    return x, i


@CPU
def test_an_exit_test_that_calls_numpy_is_computed_by_the_body():
    """`np.abs(y - x).max() < tol` is the compiled body's last value (loop_rewrite
    ExitSite.tested): no NumPy call per iteration in Python, the C++ loop only reads it."""
    f = npcompile.jit(scalar_exit, choose=False)
    got = f(make((10,), np.float64) + 2.0, 1e-13, 100)
    ref = scalar_exit(make((10,), np.float64) + 2.0, 1e-13, 100)
    np.testing.assert_array_equal(got[0], ref[0])
    assert got[1] == ref[1]
    site = f.loop_sites[0]
    assert site.tested is not None and site.test_outside is None, site.test_outside
    assert _ran_in_cpp(scalar_exit, make((10,), np.float64) + 2.0, 1e-13, 100) >= 20
    assert any("its exit test computed by the body" in lp["summary"]
               for lp in npcompile.report()["loops"]), npcompile.report()["loops"]


@pytest.mark.parametrize("tol", [1e-13, 0.5])
def test_an_exit_test_with_an_effect_runs_once_per_iteration(tol):
    """A test whose Python has an effect keeps it once per iteration: the body that
    computes it makes no plan (api/purity.py), so the test goes back to Python."""
    seen_np, seen_npc = [], []
    ref = exit_with_effect(make((10,), np.float64) + 2.0, tol, 100, seen_np)
    got = npcompile.jit(exit_with_effect, choose=False)(make((10,), np.float64) + 2.0, tol,
                                                         100, seen_npc)
    np.testing.assert_array_equal(got[0], ref[0])
    assert got[1] == ref[1] and len(seen_npc) == len(seen_np)
    if COMPILED and DEVICE == "cpu" and got[1] > 2:
        assert any("its exit test in Python" in lp["summary"]
                   for lp in npcompile.report()["loops"]), npcompile.report()["loops"]


@pytest.mark.parametrize("tol", [1e-13, 0.5])
def test_an_exit_test_python_computes_stays_right(tol):
    check(python_exit, make((10,), np.float64) + 2.0, tol, 100)


def newton_sqrt2(x, tol, max_iter):
    """A convergence loop whose exit does more than break (`converged = True`)."""
    converged = False
    k_final = -1
    for k in range(max_iter):
        x_new = 0.5 * (x + 2.0 / x)
        err = np.max(np.abs(x_new - x))
        x = x_new
        if err < tol:
            converged = True
            k_final = k
            break
    return x, converged, k_final, k


def jacobi_keeping_the_last(A, b, tol, max_iter):
    x = np.zeros_like(b)
    D = np.diag(A)
    R = A - np.diagflat(D)
    for it in range(max_iter):
        x_new = (b - R @ x) / D
        if np.linalg.norm(x_new - x) < tol:
            x = x_new
            break
        x = x_new
    return x, it


@pytest.mark.parametrize("tol,n", [(1e-12, 100), (1e-300, 30), (10.0, 5), (1e-12, 0)])
def test_an_exit_that_sets_names_before_it_breaks(tol, n):
    """`if err < tol: converged = True; break`: the loop is an exit loop (its body
    compiled once, TEST in Python), and the statements before the break run once, as
    written, where the test held; a loop that never exits leaves them unrun."""
    check(newton_sqrt2, np.linspace(1.0, 5.0, 64), tol, n)
    if COMPILED and n >= 30:
        assert not npcompile.report()["graph_breaks"]
    A = spd(20, 5) + 80.0 * np.eye(20)
    check(jacobi_keeping_the_last, A, make((20,), np.float64), tol, n)


@CPU
def test_an_exit_with_statements_runs_in_one_cpp_loop(monkeypatch):
    monkeypatch.setenv("NPC_NATIVE_LOOPS", "0")     # (a compiled loop nest takes the Jacobi)
    A = spd(20, 5) + 80.0 * np.eye(20)
    assert _ran_in_cpp(jacobi_keeping_the_last, A, make((20,), np.float64), 1e-13, 200) >= 5
    assert _ran_in_cpp(newton_sqrt2, np.linspace(1.0, 5.0, 64), -1.0, 40) >= 20   # never exits


def newton_while(x, tol):
    k = 0
    converged = False
    while k < 50:
        x_new = 0.5 * (x + 2.0 / x)
        dz = x_new - x
        x = x_new
        k += 1
        if np.max(np.abs(dz)) < tol:
            converged = True
            break
    return x, k, converged


def nested_newton(x, steps, tol):
    """The same exit inside another loop: left as written (each outer iteration would
    enter the runner again)."""
    for _ in range(steps):
        k = 0
        while k < 20:
            dz = 0.5 * (x + 2.0 / x) - x
            x = x + dz
            k += 1
            if np.max(np.abs(dz)) < tol:
                break
        x = x * 1.5
    return x


@pytest.mark.parametrize("tol", [1e-12, -1.0, 10.0])
def test_a_while_loop_that_ends_in_an_exit(tol):
    """`while COND: ...; if TEST: converged = True; break`: TEST runs after each run of
    the compiled body, on what it made; the statements before the break run once where
    it held, not at all where COND ended the loop."""
    check(newton_while, np.linspace(1.0, 5.0, 64), tol)
    if COMPILED:
        assert not npcompile.report()["graph_breaks"]
    check(nested_newton, np.linspace(1.0, 5.0, 16), 3, tol)


@CPU
def test_a_while_exit_runs_in_one_cpp_loop(monkeypatch):
    monkeypatch.setenv("NPC_NATIVE_LOOPS", "0")     # (the body's C++ loop; a nest takes it whole)
    assert _ran_in_cpp(newton_while, np.linspace(1.0, 5.0, 64), -1.0) >= 40


def power_with_old(A, v, n):
    lam_old, lam, k = 0.0, 1.0, 0
    while abs(lam - lam_old) > 1e-12 * abs(lam) and k < n:
        w = A @ v
        v = w / np.linalg.norm(w)
        lam_old = lam
        lam = v @ A @ v
        k += 1
    return lam, lam_old, v, k


def residual_only_in_the_condition(x, tol, n):
    res, it = np.inf, 0
    while res > tol and it < n:
        x = 0.5 * x + 0.1
        res = np.max(np.abs(x - 0.2))
        it += 1
    return x, res, it


@CPU
def test_a_carried_python_number_is_traced_as_written_once(monkeypatch):
    """`lam = 1.0` before a loop whose body reads it: the first call traces the first
    iteration as written (it settles the number's type); later calls run that iteration
    compiled, the number an argument by value. A number only the condition reads
    (`res = np.inf`) is not the body's: no iteration is traced as written at all.
    lam_old = lam handed the body's 0-d array back as lam_old where NumPy has a float64
    (3 and 4 iterations: the last ran as one compiled body, not in the C++ loop)."""
    from npcompile.api import loop_runner
    written = []
    real = loop_runner._written

    def counting(fn, args, fed):
        written.append(fn)
        return real(fn, args, fed)
    monkeypatch.setattr(loop_runner, "_written", counting)
    A = spd(20, 5)
    for n in (1, 2, 3, 4, 40):
        check(power_with_old, A, np.ones(20) / np.sqrt(20), n)
    f = npcompile.jit(power_with_old, choose=False)
    f(A, np.ones(20), 40)
    first = len(written)
    assert first >= 1
    for _ in range(2):
        same_ = f(A, np.ones(20), 40)
        assert type(same_[0]) is np.float64 and type(same_[1]) is np.float64
    assert len(written) == first
    check(residual_only_in_the_condition, make((30,), np.float64), 1e-9, 100)
    check(residual_only_in_the_condition, make((30,), np.float64), 1e-9, 0)
    written.clear()
    npcompile.jit(residual_only_in_the_condition, choose=False)(make((30,), np.float64), 1e-9, 100)
    assert written == []
