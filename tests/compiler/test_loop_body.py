"""Loops whose body compiles once (api/loop_rewrite.py, api/loop_runner.py), against eager
NumPy: values, dtypes, shapes, in-place arguments, side effects and raised errors; and
the compiled path really ran: one body compiled whatever the number of iterations."""
import numpy as np
import pytest

import npcompile
from npcompile.api.loop_rewrite import LoopSite
from npcompile.api.loop_runner import LOOP_MIN
from conftest import DEVICE, check, make
from test_trace_loops import COMPILED, CPU_KERNELS


@pytest.fixture(autouse=True)
def _bodies(bodies_compiled_once):
    """Small arrays: the body compiled once, not the loop nest that would take them."""


LENGTHS = [0, 1, LOOP_MIN - 1, LOOP_MIN, 3 * LOOP_MIN + 1]


def heat(u, steps, c):
    for _ in range(steps):
        u[1:-1] = u[1:-1] + c * (u[2:] - 2 * u[1:-1] + u[:-2])
    return u


def damped(x, v, steps, dt):
    for _ in range(steps):
        a = -x - 0.1 * v
        x, v = x + dt * v, v + dt * a
    return x, v, a if steps else None


def rebinding(u, steps):
    for t in range(steps):
        u = 0.5 * u + 0.25 * (np.roll(u, 1) + np.roll(u, -1))
    return u, t if steps else -1


def int_and_float(a, b, steps):
    for _ in range(steps):
        a = a * 3 % 1001
        b += a / 7
    return a, b


def moving_window(u, steps):
    """Slices of a 2-D state; a body statement that is only an expression."""
    for _ in range(steps):
        u[:, 1:] = u[:, :-1] * 0.9
        np.multiply(u, 1.0, out=u)
    return u.sum(axis=1)


@pytest.mark.parametrize("steps", LENGTHS)
def test_in_place_stencil(steps):
    check(heat, make((40,), np.float64), steps, 0.2)


@pytest.mark.parametrize("steps", LENGTHS)
def test_carried_pair_and_last_values(steps):
    check(damped, make((16,), np.float64), make((16,), np.float64, 1), steps, 0.01)


@pytest.mark.parametrize("steps", LENGTHS)
def test_rebound_state_and_the_loop_variable_after_the_loop(steps):
    check(rebinding, make((32,), np.float32), steps)


@pytest.mark.parametrize("steps", [LOOP_MIN, 20])
def test_mixed_dtypes(steps):
    check(int_and_float, make((10,), np.int64), make((10,), np.float64), steps)


@pytest.mark.parametrize("steps", [LOOP_MIN, 12])
def test_two_d_slices_and_out_argument(steps):
    check(moving_window, make((6, 9), np.float64), steps)


def _compiles(fn, *args):
    npcompile.reset()
    npcompile.jit(fn, device=DEVICE)(*args)
    rep = npcompile.report()
    assert rep["fallbacks"] == []
    return rep


@CPU_KERNELS
def test_the_body_compiles_once_whatever_the_number_of_iterations():
    short = _compiles(heat, make((200,), np.float64), 10, 0.1)
    long = _compiles(heat, make((200,), np.float64), 80, 0.1)
    assert len(long["compiles"]) == len(short["compiles"]) == 1
    assert {k["name"] for k in long["kernel_sources"]} == \
        {k["name"] for k in short["kernel_sources"]}
    loop = long["loops"][0]
    assert loop["iterations"] == 80 and loop["function"] == "heat"
    assert loop["summary"].startswith(f"line {loop['lineno']}: 80 iterations, one compiled body")
    # the body's kernels ran once per iteration (the first calls are timed in full)
    runs = [k for k in long["kernels"] if k["target"] == "cpu"]
    assert len(runs) >= 80


def body_sites(j):
    """The loops whose body compiles once (not the scalar nests of api/native_loop.py)."""
    return [s for s in j.loop_sites if isinstance(s, LoopSite)]


def test_the_rewritten_loop_and_why_not():
    j = npcompile.jit(heat)
    assert [s.params for s in body_sites(j)] == [["u", "c"]]

    def reads_the_index(u, n):
        for i in range(n):
            u = u + i
        return u
    # read as a number: the body takes it as a 0-d array (trace/loop_values.py)
    assert [s.value_at for s in body_sites(npcompile.jit(reads_the_index))] == [1]

    def with_an_if(u, n):
        for _ in range(n):
            if n > 3:
                u = u + 1
        return u
    assert body_sites(npcompile.jit(with_an_if)) == []
    k = 2.0

    def closure(u, n):
        for _ in range(n):
            u = u * k
        return u
    assert npcompile.jit(closure).loops_refusal.startswith("a closure")
    assert body_sites(npcompile.jit(heat, loops=False)) == []


def test_side_effects_happen_once_per_iteration():
    seen = []

    def body_with_effects(u, n, seen):
        for _ in range(n):
            u = u * 0.5
            seen.append(float(u[0]))     # a graph break and an effect every iteration
        return u
    want = []
    exp = body_with_effects(np.full(4, 64.0), 12, want)
    got = npcompile.jit(body_with_effects, device=DEVICE)(np.full(4, 64.0), 12, seen)
    np.testing.assert_array_equal(np.asarray(got), exp)
    assert seen == want


def test_a_carried_python_number_is_traced_as_written():
    def clock(u, n, dt):
        t = 0.0
        for _ in range(n):
            t = t + dt
            u = u + t
        return u, t
    check(clock, make((5,), np.float64), 12, 0.25)


def gradient_steps(X, y, iters):
    w = np.zeros(X.shape[1], dtype=X.dtype)
    b = 0.0                      # a Python float until the first iteration
    for _ in range(iters):
        p = 1.0 / (1.0 + np.exp(-(X @ w + b)))
        w -= 0.5 * (X.T @ (p - y)) / len(y)
        b -= 0.5 * np.mean(p - y)
    return w, b


@pytest.mark.parametrize("iters", [LOOP_MIN, 25])
def test_a_number_the_first_iteration_makes_an_array(iters):
    # float64: in float32 the compiled exp and matmul round further from NumPy's over the
    # iterations, unrolled or not
    X = make((40, 3), np.float64)
    y = (make((40,), np.float64, 2) > 0).astype(np.float64)
    check(gradient_steps, X, y, iters, ulp=1024)  # exp and matmul: summation order


def scalar_state(x, s, steps):
    for _ in range(steps):
        s = s * 0.5 + x.max()       # a NumPy scalar carried from iteration to iteration
        x = x * 0.5 + s
        s += 1                      # rebinds: NumPy scalars are immutable
    return x, s


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_carried_numpy_scalars(dtype):
    x = make((7,), dtype)
    check(scalar_state, x, x.dtype.type(3), 12, ulp=16)


def test_a_carried_scalar_that_becomes_an_array():
    def grows(x, s, steps):
        for _ in range(steps):
            s = s + x           # np.float64 in, an array from the first iteration on
        return s
    check(grows, make((5,), np.float64), np.float64(2.0), 10)


@CPU_KERNELS
def test_after_the_first_iteration_the_body_compiles_once():
    # (arrays past loop_runner.NEST_PREFERRED_ELEMENTS: a compiled loop nest takes the
    # loop over small ones)
    X = make((2000, 3), np.float64)
    y = (make((2000,), np.float64, 2) > 0).astype(np.float64)
    rep = _compiles(gradient_steps, X, y, 30)
    (loop,) = [lp for lp in rep["loops"] if "iterations" in lp["summary"]]
    assert "30 iterations, one compiled body" in loop["summary"]
    assert "first iteration was traced as written" in loop["summary"]
    more = _compiles(gradient_steps, X, y, 120)  # the compile does not grow with them
    assert len(more["compiles"]) == len(rep["compiles"])


def test_a_name_bound_later_raises_as_in_python():
    def unbound(u, n):
        for _ in range(n):
            u = u + acc      # noqa: F821  (bound below, after its first read)
            acc = u * 2
        return u
    check(unbound, make((5,), np.float64), 10)


def test_an_error_in_the_body_is_numpys():
    def mismatch(u, n):
        for _ in range(n):
            u = u + np.ones(3)
        return u
    check(mismatch, make((5,), np.float64), 10)


def test_the_callers_array_is_updated_in_place_as_in_numpy():
    u = make((30,), np.float64)
    want = heat(u.copy(), 16, 0.2)
    got_u = u.copy()
    got = npcompile.jit(heat, device=DEVICE)(got_u, 16, 0.2)
    assert np.allclose(got_u, want) and np.allclose(np.asarray(got), want)


def test_a_cell_loop_compiles_once_and_leaves_every_name_bound():
    """%%npcompile cells (npcompile.run_cell): the loop's names persist in the namespace
    for later cells, the rewrite's own names do not."""
    src = ("r = 0.25\n"
           "for _ in range(30):\n"
           "    v = u[1:-1] + r * (u[2:] - 2 * u[1:-1] + u[:-2])\n"
           "    u[1:-1] = v\n"
           "total = u.sum()\n"
           "total\n")
    u0 = np.linspace(0.0, 1.0, 64) ** 2
    ref = {"np": np, "u": u0.copy()}
    exec(src, ref)
    npcompile.reset()
    ns = {"np": np, "u": u0.copy()}
    out = npcompile.run_cell(src, ns, device=DEVICE)
    assert sorted(k for k in ns if not k.startswith("__")) == ["_", "np", "r", "total", "u", "v"]
    for k in ("u", "v", "total"):
        got = ns[k].get() if type(ns[k]).__name__ == "DeviceArray" else ns[k]
        np.testing.assert_allclose(got, ref[k], rtol=1e-12)
    assert ns["_"] == 29 and np.isclose(float(np.asarray(out)), ref["total"])
    loops = npcompile.report()["loops"]
    assert loops and loops[0]["iterations"] == 30
    # (the reference backend compiles nothing to replay: the loop is traced as written)
    assert ("one compiled body" in loops[0]["summary"]) == COMPILED


_made = []


def _default():
    _made.append(1)
    return 2.0


def test_defaults_and_annotations_are_not_evaluated_again():
    def scaled(u, n, k=_default(), *, w: "NotDefinedAnywhere" = 1.0) -> "Nor":  # noqa: F821
        for _ in range(n):
            u = u * k * w
        return u
    before = len(_made)
    j = npcompile.jit(scaled, device=DEVICE)
    assert len(_made) == before and j.loop_sites
    got = j(np.ones(3), 10)
    np.testing.assert_allclose(np.asarray(got.get() if hasattr(got, "get") else got), 2.0 ** 10)


def red_black(u, f, sweeps):
    """An inner loop over a literal: the four sub-grids of a red-black sweep."""
    n = u.shape[0]
    for _ in range(sweeps):
        for (i, j) in ((1, 1), (2, 2), (1, 2), (2, 1)):
            u[i:n - 1:2, j:n - 1:2] = 0.25 * (u[i - 1:n - 2:2, j:n - 1:2] + u[i + 1:n:2, j:n - 1:2]
                                              + u[i:n - 1:2, j - 1:n - 2:2]
                                              + u[i:n - 1:2, j + 1:n:2] + f[i:n - 1:2, j:n - 1:2])
    return u


def stages(x, steps):
    """range() of a constant inside, its variable read after the loop."""
    for _ in range(steps):
        for s in range(3):
            x = x * 0.5 + s
    return x, s


@pytest.mark.parametrize("sweeps", [1, LOOP_MIN, 2 * LOOP_MIN + 3])
def test_an_inner_loop_over_a_literal(sweeps):
    check(red_black, make((10, 10), np.float64), make((10, 10), np.float64, 1), sweeps)
    check(stages, make((7,), np.float32), sweeps)


@CPU_KERNELS
def test_an_inner_loop_over_a_literal_is_written_out_and_compiles_once():
    j = npcompile.jit(red_black)
    assert [sorted(s.params) for s in body_sites(j)] == [["f", "n", "u"]]
    short = _compiles(red_black, make((12, 12), np.float64), make((12, 12), np.float64, 1), 10)
    long = _compiles(red_black, make((12, 12), np.float64), make((12, 12), np.float64, 1), 40)
    assert len(long["compiles"]) == len(short["compiles"]) == 1
    outer = [lp for lp in long["loops"] if lp["text"].startswith("for _ in range(sweeps)")]
    assert outer[0]["summary"].startswith(f"line {outer[0]['lineno']}: 40 iterations, "
                                          "one compiled body")

    def breaks_out(x, steps):
        for _ in range(steps):
            for s in (1, 2, 3):
                if s > 1:
                    break
                x = x + s
        return x
    assert body_sites(npcompile.jit(breaks_out)) == []
    check(breaks_out, make((5,), np.float64), LOOP_MIN)


def with_helpers(u, steps, dt):
    """Helpers defined inside the function, as scientists write them (a Laplacian, a
    right-hand side with a default and a closure value)."""
    scale = 0.5

    def lap(v):
        return np.roll(v, 1, 0) + np.roll(v, -1, 0) + np.roll(v, 1, 1) - 3 * v

    def rhs(v, k=2.0):
        return scale * k * lap(v)
    for _ in range(steps):
        u = u + dt * rhs(u)
    return u


@pytest.mark.parametrize("steps", [LOOP_MIN, 2 * LOOP_MIN + 1])
def test_helpers_defined_inside_the_function(steps):
    check(with_helpers, make((9, 7), np.float64), steps, 0.05)


@CPU_KERNELS
def test_a_loop_calling_a_helper_defined_inside_compiles_once():
    """The helpers are new function objects at every call, handed to the body as
    arguments: keyed by code and closure values, the body replays instead of being
    traced as written at every iteration."""
    short = _compiles(with_helpers, make((9, 7), np.float64), 10, 0.05)
    long = _compiles(with_helpers, make((9, 7), np.float64), 40, 0.05)
    assert len(long["compiles"]) == len(short["compiles"]) == 1
    loop = long["loops"][0]
    assert loop["summary"].startswith(f"line {loop['lineno']}: 40 iterations, one compiled body")

    def closure_over_a_list(u, steps):
        box = [0.5]

        def f(v):
            return v * box[0]
        for _ in range(steps):
            u = f(u) + 1
            box[0] += 0.1     # not guarded by a key: each iteration traced as written
        return u
    check(closure_over_a_list, make((6,), np.float64), LOOP_MIN + 2)


def rebinds_a_captured_variable(u, steps):
    k = 0.0

    def f(v):
        return v * k + 1
    for t in range(steps):
        k = t * 0.5           # f must see each new k: the loop runs as written
        u = f(u)
    return u, k


@pytest.mark.parametrize("steps", [LOOP_MIN, 2 * LOOP_MIN + 1])
def test_a_loop_rebinding_a_variable_a_helper_captures(steps):
    check(rebinds_a_captured_variable, make((6,), np.float64), steps)


def vote(board, rounds):
    """A majority vote over the von Neumann neighbourhood; board is captured by the
    generator expression, inside the loop only."""
    for _ in range(rounds):
        votes = sum(np.roll(board, k, axis=a) for a in (0, 1) for k in (-1, 1))
        board = (votes + board >= 3).astype(np.uint8)
    return board


def captured_after(u, steps):
    """u rebound by the loop and captured by a generator expression after it."""
    for _ in range(steps):
        u = u * 0.5 + 1.0
    return sum(x * 2 for x in u), [v + 1 for v in u]


@CPU_KERNELS
@pytest.mark.parametrize("steps", [LOOP_MIN, 3 * LOOP_MIN])
def test_a_variable_captured_inside_the_body_only_compiles_once(steps):
    board = (np.random.default_rng(3).random((12, 12)) < 0.4).astype(np.uint8)
    check(vote, board, steps)
    check(captured_after, make((5,), np.float64), steps)
    rep = _compiles(vote, board, steps)
    assert len(rep["compiles"]) == 1
    assert any(f"{steps} iterations, one compiled body" in lp["summary"]
               for lp in rep["loops"])
