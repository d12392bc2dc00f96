"""Loops whose slice bounds are read from array elements (loop_rewrite.UntracedSite): a
0-1 knapsack's `best[w[i]:]`, a CSR matrix's `data[indptr[i]:indptr[i + 1]]`. Each
iteration is a graph of its own shape and which shapes depends on the data, so the loop
runs as plain NumPy, untraced, instead of unrolling into the trace: checked against
eager NumPy on values, dtypes and in-place arguments, and on what was compiled."""
import numpy as np
import pytest

import npcompile
from conftest import same
from test_trace_loops import COMPILED, CPU_KERNELS


def knapsack(w, v, cap):
    """Which totals a subset of the weights reaches, and the best value per total: a
    row of booleans and one of values, updated per item from its own weight on."""
    reach = np.zeros(cap + 1, dtype=bool)
    reach[0] = True
    value = np.zeros(cap + 1, dtype=np.int64)
    for k in range(len(w)):
        wk = w[k]
        before = reach[:cap + 1 - wk].copy()
        gain = np.where(before, value[:cap + 1 - wk] + v[k], 0)
        value[wk:] = np.maximum(value[wk:], gain)
        reach[wk:] |= before
    return value * 2, np.flatnonzero(reach)[-3:]


def csr_matvec(data, indices, indptr, x, y):
    """y += A @ x row by row, into the caller's y; the rows' norms returned."""
    scale = np.sqrt(x @ x)
    norms = np.empty(len(indptr) - 1)
    for i in range(len(indptr) - 1):
        lo = indptr[i]
        hi = indptr[i + 1]
        row = data[lo:hi]
        y[i] += row @ x[indices[lo:hi]] / scale
        norms[i] = np.sqrt(np.sum(row * row))
    return norms + scale


def csr_row_sums(data, indptr):
    """Bounds unpacked from a tuple (`lo, hi = ...`) are read from elements too."""
    out = np.zeros(len(indptr) - 1)
    for i in range(len(indptr) - 1):
        lo, hi = indptr[i], indptr[i + 1]
        out[i] = np.median(data[lo:hi]) * 2.0 if hi > lo else 0.0
    return out


def knapsack_inputs(n, seed=0):
    rng = np.random.default_rng(seed)
    return rng.integers(1, 20, n), rng.integers(1, 50, n), 120


def csr_inputs(rows, seed=1):
    rng = np.random.default_rng(seed)
    counts = rng.integers(0, 6, rows)
    indptr = np.concatenate([[0], np.cumsum(counts)])
    indices = rng.integers(0, rows, indptr[-1])
    return rng.standard_normal(indptr[-1]), indices, indptr, rng.standard_normal(rows), \
        np.zeros(rows)


def untraced_loops():
    return [r for r in npcompile.report()["loops"] if "as plain NumPy, untraced:" in r["summary"]]


@pytest.mark.parametrize("n", [3, 9, 40, 160])
def test_knapsack_matches_numpy(n):
    w, v, cap = knapsack_inputs(n)
    f = npcompile.jit(knapsack)
    for _ in range(2):
        same(f(w, v, cap), knapsack(w, v, cap))
    # long enough: the loop ran untraced, and nothing of it went into a graph
    loops = untraced_loops()
    if n >= 8:
        assert loops and loops[0]["iterations"] == n
        assert all(c["ops"] < 20 for c in npcompile.report()["compiles"])
    else:
        assert not loops


@pytest.mark.parametrize("rows", [5, 30, 120])
def test_csr_rows_match_numpy_and_write_into_y(rows):
    data, indices, indptr, x, y = csr_inputs(rows)
    ey = y.copy()
    expect = csr_matvec(data, indices, indptr, x, ey)
    f = npcompile.jit(csr_matvec)
    same(f(data, indices, indptr, x, y), expect)
    np.testing.assert_array_equal(y, ey)
    assert not npcompile.report()["fallbacks"]


def test_bounds_unpacked_from_a_tuple():
    data, _, indptr, _, _ = csr_inputs(60)
    f = npcompile.jit(csr_row_sums)
    same(f(data, indptr), csr_row_sums(data, indptr))
    assert untraced_loops() and not npcompile.report()["recompiles"]


def test_four_times_the_items_compiles_nothing_more():
    f = npcompile.jit(knapsack)
    f(*knapsack_inputs(50))
    ops = sum(c["ops"] for c in npcompile.report()["compiles"])
    npcompile.reset()
    g = npcompile.jit(knapsack)
    w, v, cap = knapsack_inputs(200)
    same(g(w, v, cap), knapsack(w, v, cap))
    assert sum(c["ops"] for c in npcompile.report()["compiles"]) <= ops


def test_a_numpy_error_inside_is_numpy_s():
    w, v, cap = knapsack_inputs(12)
    w[5] = 130      # past the capacity: value[:cap + 1 - 130] and value[130:] do not broadcast
    with pytest.raises(ValueError) as expected:
        knapsack(w.copy(), v, cap)
    f = npcompile.jit(knapsack)
    with pytest.raises(ValueError) as got:
        f(w, v, cap)
    assert str(got.value) == str(expected.value)


def red_black(u, sweeps):
    """A subscript target names i, j and n (`u[i:n - 1:2, ...] = ...`): it binds none of
    them, so its slices are not data bounds, and the loop is one compiled body."""
    n = u.shape[0]
    for _ in range(sweeps):
        for (i, j) in ((1, 1), (2, 2), (1, 2), (2, 1)):
            u[i:n - 1:2, j:n - 1:2] = 0.25 * (u[i - 1:n - 2:2, j:n - 1:2] +
                                              u[i + 1:n:2, j:n - 1:2])
    return u


@CPU_KERNELS
def test_a_subscript_target_binds_no_bound():
    u = np.linspace(0.0, 1.0, 24 * 24).reshape(24, 24)
    expect = red_black(u.copy(), 10)
    f = npcompile.jit(red_black, choose=False)
    same(f(u, 10), expect)
    assert not untraced_loops()
    assert any("10 iterations, one compiled body" in r["summary"]
               for r in npcompile.report()["loops"])


def dtw_backtrack(x, y):
    """A DP table filled with array rows, then its path walked back element by element:
    a while loop that breaks the graph at every step (int(np.argmin(...)))."""
    n, m = len(x), len(y)
    D = np.full((n + 1, m + 1), np.inf)
    D[0, 0] = 0.0
    for i in range(1, n + 1):
        D[i, 1:] = np.abs(x[i - 1] - y) + np.minimum(D[i - 1, 1:], D[i - 1, :-1])
    i, j = n, m
    path = []
    while i + j > 2:                     # to the corner, by the cheapest neighbour
        best = int(np.argmin([D[i - 1, j - 1], D[i - 1, j], D[i, j - 1]]))
        if best != 2:
            i -= 1
        if best != 1:
            j -= 1
        path.append((i, j))
    return D[n, m], path


def row_signs(X, w, steps):
    """The same shape of loop over rows (X[i] of a matrix): array work, traced."""
    count = 0
    for i in range(steps):
        count += int(X[i] @ w > 0)
    return count


def _untraced_summaries():
    return [lp["summary"] for lp in npcompile.report()["loops"] if "element code" in lp["summary"]]


@pytest.mark.parametrize("n", [3, 30])
def test_an_element_walk_runs_untraced_with_numpys_values(n):
    x = np.sin(np.arange(n) * 0.7)
    y = np.cos(np.arange(n + 4) * 0.3)
    npcompile.reset()
    got = npcompile.jit(dtw_backtrack)(x, y)
    exp = dtw_backtrack(x, y)
    same(got[0], exp[0])
    assert got[1] == exp[1] and all(type(a) is int for p in got[1] for a in p)
    if CPU_KERNELS:
        assert any("a while loop as plain NumPy, untraced" in s for s in _untraced_summaries())
        assert len(npcompile.report()["graph_breaks"]) <= 2


def test_a_walk_over_rows_is_not_taken_for_elements():
    X = np.random.default_rng(3).standard_normal((20, 4))
    w = np.ones(4)
    npcompile.reset()
    assert npcompile.jit(row_signs)(X, w, 20) == row_signs(X, w, 20)
    assert not _untraced_summaries()


def plain_inside(w, v, cap):
    """Inside the untraced loop the arrays are NumPy's own (not lazy arrays, whose every
    index went through Python); a view taken before it sees its writes, and after it
    the array is traced again."""
    best = np.zeros(cap + 1, dtype=np.int64) + 1
    head = best[:5]
    plain = []
    for i in range(len(w)):
        wi = w[i]
        cand = best[:cap + 1 - wi] + v[i]
        best[wi:] = np.where(cand > best[wi:], cand, best[wi:])
        plain.append(type(best) is np.ndarray and type(v) is np.ndarray)
    return best * 3 - 1, head + 0, all(plain), (best[::2] + head[0]).sum()


@pytest.mark.parametrize("n", [12, 60])
def test_an_untraced_loop_works_on_numpy_arrays_and_hands_them_back_traced(n):
    npcompile.reset()
    w, v, cap = knapsack_inputs(n, seed=3)
    f = npcompile.jit(plain_inside, choose=False)
    for _ in range(2):
        same(f(w.copy(), v.copy(), cap), plain_inside(w.copy(), v.copy(), cap))
    assert untraced_loops()
    if COMPILED:            # what follows the loop is a kernel
        assert sum(c["kernels"] for c in npcompile.report()["compiles"]) > 0
