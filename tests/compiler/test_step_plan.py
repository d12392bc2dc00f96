"""Replay of calls with graph breaks (api/step_plan.py): the graphs, the eager NumPy calls
at the breaks and the values Python read run again without the Python body, and a call
whose reads or shapes come out otherwise is traced as written. Every call is compared
with eager NumPy: values, dtypes, types, and the arguments written in place."""
import os

import numpy as np
import pytest

import npcompile
from npcompile.api.step_plan import StepPlan
from npcompile.backends import cpu
from npcompile.records import SESSION

pytestmark = pytest.mark.skipif(not cpu.AVAILABLE or os.environ.get(
    "NPC_BACKEND") == "reference", reason="replay needs the compiled CPU backend")


def _replayed():
    return bool(SESSION.traces) and bool(SESSION.traces[-1].get("replay"))


def _same(got, want):
    if isinstance(want, tuple):
        assert type(got) is tuple and len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w)
        return
    assert type(got) is type(want)
    if isinstance(want, np.ndarray):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)
    else:
        assert got == want


def _step_plans(j):
    return [p for p in j._plans.values() if isinstance(p, StepPlan)]


def _check(fn, make_args, calls):
    """Call the jit and NumPy on fresh copies of each call's arguments: the same results
    and the same writes; returns the jit and whether each call replayed."""
    j = npcompile.jit(fn, choose=False)
    replayed = []
    for c in calls:
        args = make_args(c)
        mine = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        want = fn(*args)
        got = j(*mine)
        replayed.append(_replayed())
        _same(got, want)
        for a, m in zip(args, mine):
            if isinstance(a, np.ndarray):
                np.testing.assert_array_equal(m, a)
    return j, replayed


def unique_then_graph(x):
    # with its indices np.unique has no trace rule: an eager NumPy call (its values, and
    # its counts, are lazy selections: test_unique_values.py)
    u, _ = np.unique(x // 4, return_index=True)
    return x * 2 + u.size, u + 1


def test_an_eager_call_between_graphs_replays():
    x = np.arange(40) % 13
    j, replayed = _check(unique_then_graph, lambda c: (x,), range(4))
    assert replayed == [False, True, True, True]
    plan, = _step_plans(j)
    assert len([s for s in plan.steps if s[0] == 0]) >= 1
    assert SESSION.kernels, "no compiled kernel ran"


def test_a_result_of_another_shape_traces_again():
    """np.unique's length changes with the data: the graphs after it were made for the
    old length, so the call is traced as written, and makes the plan the next call
    replays (one plan per argument layout: the latest)."""
    j, replayed = _check(unique_then_graph, lambda c: (np.arange(40) % c,), [13, 13, 7, 7, 13])
    assert replayed == [False, True, False, True, False]


def branchy(a, tol):
    s = (a * a).sum()
    if s > tol:                     # a truth value read at a break
        a *= 0.5
        out = a + 1
    else:
        out = a - 1
    k = int(np.argmax(a))           # a number read at a break
    return out[:k + 1] * 3, k


def test_reads_decide_the_path_and_a_wrong_guess_undoes_its_writes():
    """The plan written for the `s > tol` branch halves `a` in place before its next
    read; where the read comes out otherwise, `a` gets its values back and the call
    runs as written: `a` is halved exactly as often as NumPy halves it."""
    base = np.linspace(-1, 2, 64)
    scales = [1.0, 1.0, 1.0, 0.01, 0.01, 1.0]
    j, replayed = _check(branchy, lambda c: (base * c, 5.0), scales)
    assert replayed[1] and replayed[2] and replayed[4]
    assert not replayed[3]


def masked_stats(x, m_lo):
    sel = x[x > m_lo]                # x[mask], compact: its length depends on the data
    c = sel - sel.mean()
    return c * 2, sel.size


def test_a_compaction_replays_at_a_new_count():
    """The compact array is made after the function returned, and its size is a number
    the graph computes: a new count replays too (api/step_plan._free_shapes)."""
    rng = np.random.default_rng(1)
    x = rng.standard_normal(200)
    y = rng.standard_normal(200)
    j, replayed = _check(masked_stats, lambda c: ((x, y)[c], 0.25), [0, 0, 0, 1, 1])
    assert replayed == [False, True, True, True, True]


def eigen_then(a, b):
    b += 1.0
    w = np.linalg.eigvals(a)        # an eager call (its dtype hangs on the values) that
    return b * np.abs(w).max()      # raises NumPy's LinAlgError on a NaN


def test_numpy_error_at_replay_is_numpys_and_arguments_are_left_as_numpy_leaves_them():
    good = np.array([[2.0, 1.0], [1.0, 3.0]])
    bad = np.array([[1.0, np.nan], [2.0, 4.0]])
    j = npcompile.jit(eigen_then, choose=False)
    b = np.ones(2)
    for _ in range(3):
        j(good, b)
    assert _step_plans(j) and _replayed()
    b_np = b.copy()
    with pytest.raises(np.linalg.LinAlgError) as want:
        eigen_then(bad, b_np)
    with pytest.raises(np.linalg.LinAlgError) as got:
        j(bad, b)
    assert str(got.value) == str(want.value)
    np.testing.assert_array_equal(b, b_np)


def printer(x):
    y = x + 1
    print(int(y[0]))                 # an effect: not replayed
    return y * 2


def test_a_call_with_effects_makes_no_plan(capsys):
    j = npcompile.jit(printer, choose=False)
    x = np.arange(5.0)
    for _ in range(3):
        j(x)
    assert capsys.readouterr().out.count("1\n") == 3
    assert not _step_plans(j)


def sorts_in_place(x):
    y = x * 2
    y.sort()                         # a write into an array NumPy made: not a step
    return y + 1


def test_an_eager_write_into_an_array_makes_no_plan():
    x = np.array([3.0, 1.0, 2.0])
    j, replayed = _check(sorts_in_place, lambda c: (x,), range(3))
    assert not any(replayed)
    assert not _step_plans(j)


def returns_and_writes_an_eager_result(x):
    u = np.unique(x)
    u[0] = -1                        # a write into the array np.unique made
    idx = np.nonzero(x > 2)[0]       # a tuple of arrays
    return u * 2, x[idx] + 0.5, u


def test_eager_results_returned_written_and_taken_apart():
    x = np.array([3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0])
    j, replayed = _check(returns_and_writes_an_eager_result, lambda c: (x * c,), [1, 1, 1, 2, 2])
    assert replayed == [False, True, True, False, True]


def reads_an_argument(x, y):
    if x[0] > 0:                     # an argument's own element, read in Python
        return y * 2
    return y - 1


def test_a_read_of_an_argument_is_checked_at_every_replay():
    y = np.arange(6.0)
    signs = [1, 1, -1, -1, 1]
    j, replayed = _check(reads_an_argument, lambda c: (np.array([c, 0.0]), y), signs)
    assert replayed == [False, True, False, True, False]


def clip_count(x):
    y = x * 2.0
    n_big = 0
    for i in range(y.shape[0]):      # a scalar loop nest, run compiled on its own
        if y[i] > 1.0:
            y[i] = 1.0
            n_big += 1
    return y + 1, n_big


def test_a_loop_nest_run_on_its_own_is_a_step():
    """The nest writes into an array the graph made and binds a count: a replay runs it
    again on the new values (its writes land in the new array) and checks the count."""
    base = np.linspace(0.0, 1.0, 50)
    other = base[::-1].copy()        # the same count of elements above 0.5, elsewhere
    j, replayed = _check(clip_count, lambda c: ((base, other, base * 0.2)[c],), [0, 0, 1, 2, 2])
    assert replayed == [False, True, True, False, True]
    assert any("runs as one compiled function" in r["summary"] for r in SESSION.loops)


def guarded_log(x, scale):
    y = x * scale
    total = 0.0
    for i in range(y.shape[0]):      # a scalar loop nest, a step of the plan
        if y[i] > 0.5:
            total += np.log(y[i] - 0.6)
    return y - total, total


def test_a_replayed_nest_types_once_and_still_stops_where_python_would():
    """Replays of a plan run its nest from what the first replay found of its arguments'
    types (native_loop.NestSite.replays): the nest's own checks still run at each one.
    A call whose data makes a NaN (the log of a negative: NumPy warns) runs the loop as
    Python there, with NumPy's values; the calls after it replay again."""
    import warnings
    from npcompile.api import native_loop
    x = np.where(np.arange(40) % 2, 0.9, 0.1)
    bad = x.copy()
    bad[7] = 0.38                    # 0.57 after scaling: log(-0.03)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        j, replayed = _check(guarded_log, lambda c: ((x, bad)[c == 9], 1.5 if c < 5 else 2),
                             [0, 1, 2, 3, 9, 5, 6, 7])
    assert replayed[1:4] == [True, True, True] and replayed[-2:] == [True, True], replayed
    sites = [st[1].args[0] for p in _step_plans(j) for st in p.steps
             if getattr(st[1], "func", None) is native_loop._again]
    assert sites and all(len(site.replays) == 1 for site in sites), \
        [site.replays for site in sites]   # (an array and a float: typed once)


def jacobi_solve(A, b, tol, maxiter):
    D = np.diag(A)                   # a read-only view of the argument
    R = A - np.diagflat(D)
    x = np.zeros_like(b)
    for it in range(maxiter):        # a body compiled once, its exit test in it
        x_new = (b - R @ x) / D
        if np.max(np.abs(x_new - x)) < tol:
            return x_new, it
        x = x_new
    return x, maxiter


def test_a_loop_given_a_read_only_view_is_a_step_and_the_call_replays():
    """The loop reads np.diag(A), a read-only view of an argument, which no step
    writes: it was counted among the arrays the loop might write, which the plan could
    not find again, and the call traced at every call (jacobi_iteration, 0.29x NumPy)."""
    rng = np.random.default_rng(0)
    A, b = rng.random((30, 30)) + 60.0 * np.eye(30), rng.random(30)
    # (the same system each call: the number of iterations it takes is a value the
    # plan checks)
    j, replayed = _check(jacobi_solve, lambda c: (A, b, 1e-12, 200), range(4))
    assert all(replayed[1:]), (replayed, j.replay_refusals)


def heat_steps(u, k):
    u = u.copy()
    for _ in range(k):               # a body compiled once, run on its own
        u[1:-1] = u[1:-1] + 0.1 * (u[:-2] - 2 * u[1:-1] + u[2:])
    return u * 2, u[0] + u[-1]


def test_a_loop_run_on_its_own_is_a_step_and_the_call_replays():
    rng = np.random.default_rng(2)
    # (above loop_runner.NEST_PREFERRED_ELEMENTS: a body compiled once, not a nest)
    u0, u1 = rng.random(6000), rng.random(6000)
    j, replayed = _check(heat_steps, lambda c: ((u0, u1)[c], 12), [0, 0, 1, 1])
    assert replayed == [False, True, True, True]
    assert any("one compiled body" in r["summary"] for r in SESSION.loops)


def relax_then_test(u, tol):
    for _ in range(16):              # writes the caller's array in place
        u[1:-1] = 0.5 * (u[:-2] + u[2:])
    if np.abs(u).max() > tol:        # read after the writes: may come out otherwise
        return u * 2
    return u - 1


def test_a_failed_read_after_a_loop_gives_the_callers_array_back_before_tracing():
    """The replay's loop has written `u` when the read comes out otherwise: `u` gets its
    values of before the call back, and the traced call writes it once, as NumPy does."""
    base = np.linspace(0.0, 1.0, 6000)
    j, replayed = _check(relax_then_test, lambda c: (base * c, 0.5), [1.0, 1.0, 0.1, 0.1, 1.0])
    assert replayed == [False, True, False, True, False]
    assert any("one compiled body" in r["summary"] for r in SESSION.loops)
    plan, = _step_plans(j)
    assert plan.saved == [0]


def jacobi_until(u, f, tol):
    err = np.inf
    k = 0
    while err > tol and k < 500:     # a while loop run compiled on its own
        new = u.copy()
        new[1:-1] = 0.5 * (u[:-2] + u[2:] - f[1:-1])
        err = np.abs(new - u).max()
        u = new
        k += 1
    return u * 2, k


def test_a_while_loop_is_a_step_and_its_count_is_checked():
    """The iteration count is a number the loop binds: a replay on data that converges
    in another count of iterations finds it changed and traces the call as written."""
    f = np.zeros(6000)
    x = np.linspace(0, 3, 6000)
    u0 = np.sin(x) + 0.01 * np.cos(2000 * x)     # 6 iterations; scaled by 0.5, 4
    j, replayed = _check(jacobi_until, lambda c: (u0 * c, f, 1e-3), [1.0, 1.0, 1.0, 0.5, 0.5])
    assert replayed == [False, True, True, False, True]
    assert any("one compiled body" in r["summary"] for r in SESSION.loops)


def scaled_by(t, y):
    return y * float(t)              # reads the caller's 0-d array itself


def test_a_value_read_is_kept_as_a_copy_not_as_the_callers_array():
    """The value read was the argument itself: kept as it was, a write into the caller's
    array between calls is seen (the plan kept the array, compared it with itself and
    replayed the old constant: 2.0 where NumPy multiplies by 3.0)."""
    j = npcompile.jit(scaled_by, choose=False)
    t, y = np.array(2.0), np.arange(3.0)
    _same(j(t, y), scaled_by(t, y))
    _same(j(t, y), scaled_by(t, y))
    assert _replayed()
    t[...] = 3.0
    _same(j(t, y), scaled_by(t, y))
    assert not _replayed()


def relax_until_converged(u, tol):
    for it in range(400):            # a loop with a convergence test, compiled on its own
        new = u.copy()
        new[1:-1] = 0.5 * (u[:-2] + u[2:])
        if np.abs(new - u).max() < tol:
            break
        u = new
    return u * 2, it


def test_a_loop_with_an_exit_test_is_a_step_and_its_exit_is_checked():
    x = np.linspace(0, 3, 6000)
    u0 = np.sin(x) + 0.01 * np.cos(2000 * x)
    j, replayed = _check(relax_until_converged, lambda c: (u0 * c, 1e-3),
                         [1.0, 1.0, 1.0, 0.5, 0.5])
    assert replayed == [False, True, True, False, True]
    assert any("one compiled body" in r["summary"] for r in SESSION.loops)


def fit_with_bias(w, X, y):
    b = 0.0                          # a Python number the first iteration makes a NumPy one
    for _ in range(20):
        r = X @ w + b - y
        w = w - 0.1 * (X.T @ r) / len(y)
        b -= 0.1 * np.mean(r)
    return w, b


def test_a_loop_whose_first_iteration_is_traced_as_written_is_a_step_from_the_second():
    rng = np.random.default_rng(4)
    X, y = rng.standard_normal((3000, 4)), rng.standard_normal(3000)
    j = npcompile.jit(fit_with_bias, choose=False)
    replayed = []
    for c in (1.0, 1.0, 1.0, 0.5):
        w = np.zeros(4)
        got, want = j(w, X, y * c), fit_with_bias(w, X, y * c)
        replayed.append(_replayed())
        np.testing.assert_allclose(got[0], want[0], rtol=1e-12)
        assert type(got[1]) is type(want[1])
        np.testing.assert_allclose(got[1], want[1], rtol=1e-12)
    # (b, a number the loop binds, is checked: other data, another b, a new trace)
    assert replayed == [False, True, True, False]
    assert _step_plans(j)
    assert any("one compiled body" in r["summary"] for r in SESSION.loops)


def test_a_plan_whose_checks_keep_failing_is_dropped():
    """Data whose read changes at every call: after STEP_MISSES failed replays in a row
    the calls are traced, with the reason in replay_refusals."""
    from npcompile.api.jit import STEP_MISSES
    j = npcompile.jit(branchy, choose=False)
    base = np.linspace(-1, 2, 64)
    for k in range(STEP_MISSES + 3):
        a = base * (1.0 if k % 2 else 0.01)   # the other branch at every call
        got = j(a.copy(), 5.0)
        _same(got, branchy(a.copy(), 5.0))
    assert any("came out otherwise" in r for r in j.replay_refusals.values())
    assert not _step_plans(j)


def counts_and_element(x):
    y = np.abs(x) * 3
    vals, counts = np.unique(np.floor(y), return_index=True)    # keywords, a tuple back
    if y[3] > 1.5:                   # an element of a graph's output, read in Python
        return vals * 2, counts + 1
    return vals, counts


def test_eager_keywords_tuple_results_and_element_reads_of_outputs():
    rng = np.random.default_rng(5)
    x = rng.standard_normal(300)
    x[3] = 0.1                       # y[3] 0.3: floor 0, not above 1.5
    x2 = x.copy()
    x2[3] = 0.6                      # y[3] 1.8: floor 1, the other branch, as many values
    j, replayed = _check(counts_and_element, lambda c: ((x, x2)[c],), [0, 0, 0, 1, 1])
    assert replayed == [False, True, True, False, True]


def unique_of_a_column(A):
    u = np.unique(A[:, 1].T)         # the graph before the break holds views only
    return A * u.size


def test_a_graph_of_views_before_a_break_replays():
    A = np.arange(60.0).reshape(12, 5) % 7
    j, replayed = _check(unique_of_a_column, lambda c: (A * c,), [1.0, 1.0, 1.0, 2.0])
    assert replayed == [False, True, True, True]


def test_a_graph_run_in_numpy_for_its_layouts_is_a_step_of_the_plan():
    """Cross-correlation peaks with a sub-sample fit and the aligned coherence (the
    held-out tdoa_correlate itself): a graph of it holds a view decided on an assumed
    layout (of np.correlate's and np.roll's results, by indexes read from the data), so
    it runs in NumPy. That made the call trace at every call ("a graph of the call did
    not run compiled"); now it is kept as its calls, a step of the plan, and the call
    replays."""
    from test_native_loop import corpus_module
    peak_lag = corpus_module("tdoa_correlate", "heldout2").run

    def make(c):
        rng = np.random.default_rng(c)
        base = rng.standard_normal(300)
        return (np.stack([np.roll(base, s) + 0.01 * rng.standard_normal(300)
                          for s in (0, 3 + c % 4, -5)]),)
    j, replayed = _check(peak_lag, make, range(5))
    assert _step_plans(j) and all(replayed[1:]), (replayed, j.replay_refusals)


def test_a_time_loop_of_helper_nests_replays():
    """Crank-Nicolson (the corpus program): each of 25 time steps is a graph and a Thomas
    solve, a module-level helper whose two sweeps run as loop nests. The time loop's body
    is a plan of steps of its own (graph, nest, nest, graph), replayed per iteration:
    its first call traced 23 of 25 iterations as written ("the body could not be run
    again without its Python"), 4x the steps took 1.5x the time cold; and the call as a
    whole replays (its plan stopped at 64 steps once, and the call traced every time)."""
    from test_native_loop import corpus_module
    m = corpus_module("crank_nicolson")
    j = npcompile.jit(m.run, choose=False)
    for k in range(3):
        args = list(m.make_inputs("small"))
        args[0] = args[0] * (1 + 0.1 * k)
        want = m.run(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
        got = j(*args)
        _same(got, want)
    assert _replayed(), j.replay_refusals
    (loop,) = [r for r in npcompile.report()["loops"] if "25 iterations" in r["summary"]]
    assert "one compiled body" in loop["summary"], loop
