"""The break budget (trace/budget.py BREAK_LIMIT): a call that breaks its graph again and
again on small arrays (a row loop with `int(...)` or `if` on data) stops tracing: it
runs again as plain NumPy where nothing happened yet, else the rest of it runs as plain
NumPy untraced. Values, in-place writes and the report's reason are checked against
eager NumPy; breaks on large arrays (kernels that pay) do not count."""

import os

import numpy as np
import pytest

import npcompile
from npcompile.records import SESSION
from npcompile.trace import budget
from conftest import same

LIMIT = 12


@pytest.fixture(autouse=True)
def small_budget(monkeypatch):
    # (loops as the trace takes them: a compiled loop nest would run some of these rows
    # without a break, and the budget is what is tested here)
    monkeypatch.setenv("NPC_NATIVE_LOOPS", "0")
    # (a first call over the budget settles at once: the retries have their own tests)
    monkeypatch.setattr(budget, "RETRIES", 0)
    before = budget.BREAK_LIMIT
    budget.set_break_limit(LIMIT)
    yield
    budget.set_break_limit(before)


def online_perceptron(X, y, lr):
    """An error count read back per sample: a break per row."""
    w = np.zeros(X.shape[1])
    errors = 0
    for xi, target in zip(X, y):
        update = lr * (target - np.sign(xi @ w))
        w += update * xi
        errors += int(update != 0.0)
    return w, errors


def clip_rows_in_place(A):
    """Writes into its argument before the loop (it cannot start again), then an `if`
    on data per row (np.median: not a loop nest's, which would run it all compiled)."""
    A *= 0.5
    total = 0.0
    for i in range(A.shape[0]):
        if np.median(A[i]) > 1.0:
            A[i] = np.minimum(A[i], 1.0)
        total += float(A[i].sum())
    return total


def batch_means(x, batches):
    """A break per step on arrays of 20,000 elements, the same graph at every step (one
    compile, then cache hits): each kernel pays for its break."""
    out = []
    for _ in range(batches):
        x = np.sin(x) * 0.5 + 0.25
        out.append(float(x.mean()))
    return out


def budget_choices(retry=False):
    """The calls settled as plain NumPy past the budget (retry: those traced again)."""
    return [c for c in npcompile.report()["path_choices"]
            if c.get("budget") and bool(c.get("retry")) == retry]


def inputs(n=200, d=6):
    rng = np.random.default_rng(3)
    X = rng.standard_normal((n, d))
    y = np.sign(X @ (np.arange(d) - 2.5))
    return X, y, 0.1


def test_a_call_breaking_on_small_arrays_runs_again_as_numpy():
    X, y, lr = inputs()
    f = npcompile.jit(online_perceptron)
    same(f(X, y, lr), online_perceptron(X, y, lr))
    (choice,) = budget_choices()
    assert choice["choice"] == "numpy"
    assert "broke the graph" in choice["reason"]
    assert "int() of an array value" in choice["reason"]
    assert "ran again as plain NumPy" in choice["reason"]
    # stopped at the budget: not a break per row
    assert len(npcompile.report()["graph_breaks"]) <= LIMIT
    n = len(npcompile.report()["traces"])
    for _ in range(2):      # later calls like it: NumPy, untraced
        same(f(X, y, lr), online_perceptron(X, y, lr))
    assert len(npcompile.report()["traces"]) == n


def test_a_call_that_cannot_start_again_runs_its_rest_untraced():
    A = np.linspace(0.0, 4.0, 60 * 8).reshape(60, 8)
    expect_A = A.copy()
    expect = clip_rows_in_place(expect_A)
    f = npcompile.jit(clip_rows_in_place)
    got = f(A)
    same(got, expect)
    np.testing.assert_array_equal(A, expect_A)      # the in-place writes, once
    (choice,) = budget_choices()
    assert "as plain NumPy, untraced" in choice["reason"]
    assert "could not start again" in choice["reason"]
    breaks = len(npcompile.report()["graph_breaks"])
    assert LIMIT // 4 <= breaks <= LIMIT < 2 * A.shape[0]
    # the next call is NumPy for good: the same values and writes
    B = np.linspace(0.0, 4.0, 60 * 8).reshape(60, 8)
    expect_B = B.copy()
    same(f(B), clip_rows_in_place(expect_B))
    np.testing.assert_array_equal(B, expect_B)


def test_breaks_on_large_arrays_do_not_count():
    X = np.random.default_rng(1).standard_normal(20_000)
    f = npcompile.jit(batch_means, loops=False)   # traced as written: a break per batch
    got, want = f(X, 2 * LIMIT), batch_means(X, 2 * LIMIT)
    np.testing.assert_allclose(got, want, rtol=1e-14)   # sin: a few ulps apart
    assert budget_choices() == []
    rep = npcompile.report()
    assert len(rep["graph_breaks"]) >= 2 * LIMIT
    assert rep["compiles"] and not rep["fallbacks"]


def test_a_graph_per_break_spends_the_budget_four_times_faster():
    """A constant that moves with the loop (`np.cos(0.3 * t)`) makes a new graph, and a
    compile, at every break: the budget ends it after LIMIT / 4 of them."""
    def drifting(x, steps):
        acc = 0.0
        for t in range(steps):
            x = 0.5 * x + np.cos(0.3 * t)
            if x.max() > 10.0:
                x = x / 2
            acc += float(x[0])
        return x, acc
    x = np.linspace(0.0, 1.0, 50)
    f = npcompile.jit(drifting)
    same(f(x, 40), drifting(x, 40))
    (choice,) = budget_choices()
    assert "broke the graph" in choice["reason"]
    assert len(npcompile.report()["graph_breaks"]) <= LIMIT // 2


def test_fullgraph_keeps_tracing():
    X, y, lr = inputs(n=40)
    f = npcompile.jit(online_perceptron, fullgraph=True)
    with pytest.raises(npcompile.GraphBreakError):
        f(X, y, lr)


def after_the_budget(A, b):
    """Everything after the budget runs untraced on the lazy arrays the trace left:
    writes through views, augmented assignments, out=, np.add.at, scalar nests, while
    loops and lists must do what NumPy does (the argument was written first: the call
    cannot start again)."""
    A += 1.0
    top = A[0]                  # a view made while tracing, written after the budget
    col = A[:, 1]
    acc = []
    for i in range(A.shape[0]):
        if A[i, 0] > 3.0:       # a break per row, on a small array
            A[i] *= 0.5
        acc.append(float(A[i].sum()))
    top[:] = -1.0
    col += 2.0
    np.add.at(b, [0, 1, 1, 3], 1.5)
    np.multiply(b, 2.0, out=b)
    s = 0.0
    for i in range(A.shape[0]):             # a scalar nest
        for j in range(A.shape[1]):
            s += A[i, j] * (i - j)
    k = 0
    while b.max() > 1.0 and k < 50:
        b = b * 0.75
        k += 1
    C = A.T @ A
    C[np.diag_indices_from(C)] += 1.0
    return A.sum(axis=0), b, acc, s, k, C, top, col


@pytest.mark.parametrize("rows", [LIMIT + 4, 3 * LIMIT])
def test_the_untraced_rest_matches_numpy(rows):
    A = np.linspace(0.0, 8.0, rows * 5).reshape(rows, 5)
    b = np.arange(6, dtype=np.float64)
    eA, eb = A.copy(), b.copy()
    expect = after_the_budget(eA, eb)
    f = npcompile.jit(after_the_budget)
    got = f(A, b)
    same(got, expect)
    np.testing.assert_array_equal(A, eA)
    np.testing.assert_array_equal(b, eb)
    (choice,) = budget_choices()
    assert "as plain NumPy, untraced" in choice["reason"]


def lu_rows(A):
    """Row pivoting: a break per column (`if p != k`), on a matrix too big to count as
    small, each time a new graph (the trailing block shrinks)."""
    n = A.shape[0]
    for k in range(n - 1):
        p = k + np.argmax(np.abs(A[k:, k]))
        if p != k:
            A[[k, p]] = A[[p, k]]
        A[k + 1:, k] /= A[k, k]
        A[k + 1:, k + 1:] -= np.outer(A[k + 1:, k], A[k, k + 1:])
    return A


def test_a_new_graph_at_every_break_spends_the_budget_on_larger_arrays():
    n = 130                  # 16,900 elements: past SMALL_ELEMENTS
    A = np.random.default_rng(2).standard_normal((n, n))
    expect = lu_rows(A.copy())
    f = npcompile.jit(lu_rows)
    got = f(A)
    np.testing.assert_allclose(got, expect, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(A, got)      # in place, as NumPy's
    (choice,) = budget_choices()
    assert "graph compiled anew" in choice["reason"]
    assert len(npcompile.report()["graph_breaks"]) <= LIMIT // 4 + 1


def test_explain_shows_the_breaks_up_to_the_budget():
    """explain() of a call that would run again as plain NumPy: the breaks up to the
    budget and its reason, NumPy's values, and no internal exception."""
    X, y, lr = inputs()
    ex = npcompile.explain(online_perceptron)(X, y, lr)
    same(ex.result, online_perceptron(X, y, lr))
    assert 1 <= ex.graph_break_count <= LIMIT
    assert ex.budget and "broke the graph" in ex.budget
    assert "run as plain NumPy" in ex.replay
    assert "budget: " in repr(ex)


def centres(X, C, iters):
    """k-means: a mask compaction per centre (a break each), a few of them per call on
    small arrays; its first call compiles a graph at each break (four each against the
    budget), its later calls find them compiled."""
    for _ in range(iters):
        labels = np.argmin(((X[:, None, :] - C[None, :, :]) ** 2).sum(axis=2), axis=1)
        for j in range(C.shape[0]):
            members = X[labels == j]
            if len(members) > 0:
                C[j] = members.mean(axis=0)
    return C, labels


def kmeans_inputs():
    rng = np.random.default_rng(5)
    X = rng.standard_normal((300, 2)) + np.repeat(np.eye(2) * 4, 150, axis=0)
    return X, X[:2].copy(), 2


@pytest.mark.parametrize("choose", [True, False])
def test_over_the_budget_by_new_graphs_is_traced_again_and_replays(monkeypatch, choose):
    """Over the budget only because its graphs were new: the next call traces again with
    them compiled, stays within it, and its plan of steps replays the calls after."""
    monkeypatch.setattr(budget, "RETRIES", 2)
    f = npcompile.jit(centres, choose=choose)
    for call in range(8):
        X, C, iters = kmeans_inputs()
        eC = C.copy()
        same(f(X, C, iters), centres(X, eC, iters))
        np.testing.assert_array_equal(C, eC)        # written in place, as NumPy's
        if call == 0:
            (retry,) = budget_choices(retry=True)
            assert "traced again" in retry["reason"]
        replayed = SESSION.traces[-1].get("replay")
    assert budget_choices() == [] and len(budget_choices(retry=True)) == 1
    rep = npcompile.report()
    assert rep["compiles"] and not rep["fallbacks"]
    # (replay needs the compiled CPU backend)
    assert replayed or os.environ.get("NPC_BACKEND") == "reference"


def test_breaking_every_row_settles_after_its_retries(monkeypatch):
    monkeypatch.setattr(budget, "RETRIES", 1)
    X, y, lr = inputs()
    f = npcompile.jit(online_perceptron)
    same(f(X, y, lr), online_perceptron(X, y, lr))
    assert budget_choices() == [] and budget_choices(retry=True)   # traced again next time
    same(f(X, y, lr), online_perceptron(X, y, lr))
    (choice,) = budget_choices()
    assert "over it in 2 calls in a row" in choice["reason"]
    n = len(npcompile.report()["traces"])
    same(f(X, y, lr), online_perceptron(X, y, lr))
    assert len(npcompile.report()["traces"]) == n      # NumPy for good, untraced
