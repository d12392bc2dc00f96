"""Every kind of graph break: its reason, the user's line (never ours), and a hint."""
import inspect

import numpy as np
import pytest

import npcompile
from conftest import check, make


def line_of(fn, text):
    src, start = inspect.getsourcelines(fn)
    for i, line in enumerate(src):
        if text in line:
            return start + i
    raise AssertionError(text)


def only_break(fn, *args, kind=None):
    e = npcompile.explain(fn)(*args)
    assert e.graph_break_count == 1, e
    b = e.breaks[0]
    assert b.filename == __file__
    assert b.hint
    if kind:
        assert b.kind == kind
    return b, e


def test_data_dependent_if():
    def f(x):
        y = x * 2
        if y.sum() > 0:                      # BREAK
            return y + 1
        return y - 1
    b, e = only_break(f, make((10,), np.float64), kind="bool")
    assert b.lineno == line_of(f, "# BREAK")
    assert "bool" in b.reason and "np.where" in b.hint
    assert e.graph_count == 2
    check(f, make((10,), np.float64))


def test_item_float_int_index():
    def f(x):
        s = x.max().item()                   # ITEM
        return x / s
    b, _ = only_break(f, make((5,), np.float64), kind="number")
    assert b.lineno == line_of(f, "# ITEM") and ".item()" in b.reason

    def g(x):
        return x * float(x.mean())          # FLOAT
    b, _ = only_break(g, make((5,), np.float64))
    assert b.lineno == line_of(g, "# FLOAT") and "float()" in b.reason

    def h(x):
        k = x.argmax()
        return x[:int(k) + 1]               # INT
    b, _ = only_break(h, make((5,), np.float64))
    assert b.lineno == line_of(h, "# INT")
    check(h, make((5,), np.float64))


def test_print_and_repr(capsys):
    def f(x):
        y = x + 1
        print(y)                             # PRINT
        return y * 2
    b, _ = only_break(f, make((3,), np.int64), kind="print")
    assert b.lineno == line_of(f, "# PRINT")
    out = capsys.readouterr().out
    assert out.strip() == str(make((3,), np.int64) + 1)


def test_unsupported_function_keeps_tracing():
    def f(x):
        y = np.i0(x * 2)                     # UNSUPPORTED
        return y + x
    b, e = only_break(f, make((6,), np.int32), kind="unsupported")
    assert b.lineno == line_of(f, "# UNSUPPORTED") and "np.i0" in b.reason
    assert e.graph_count == 2                # x*2 before, y+x after: tracing went on
    check(f, make((6,), np.int32))


def test_boolean_mask_read_is_data_dependent():
    def f(x):
        return np.cumsum(x[x > 0])           # MASK
    b, _ = only_break(f, make((20,), np.float64), kind="data_shape")
    assert b.lineno == line_of(f, "# MASK")
    check(f, make((20,), np.float64))


def test_iteration_and_tolist_and_array_conversion():
    def f(x):
        total = 0.0
        for row in x * 2:                    # rows are traced views: (x * 2)[i]
            total += row[0]
        return total
    e = npcompile.explain(f)(make((3, 2), np.float64))
    assert e.graph_break_count == 0 and e.graph_count == 1
    check(f, make((3, 2), np.float64))

    def g(x):
        return (x + 1).tolist()              # TOLIST
    b, _ = only_break(g, make((3,), np.int8), kind="tolist")
    check(g, make((3,), np.int8))

    def h(x):
        import array
        return array.array("d", x + 1)       # ARRAY
    b, _ = only_break(h, make((3,), np.float64))
    assert b.lineno == line_of(h, "# ARRAY")


def test_static_python_control_flow_does_not_break():
    def f(x):
        for _ in range(5):                   # fixed trip count: one graph
            x = x * 1.5 + 1
        if x.ndim == 1 and x.shape[0] > 2:
            x = x[::-1]
        return x
    e = npcompile.explain(f)(make((8,), np.float64))
    assert e.graph_count == 1 and e.graph_break_count == 0
    assert e.ops.count("multiply") == 5
    check(f, make((8,), np.float64))


def test_data_dependent_while_breaks_each_iteration_reported_once():
    """Traced as written (loops=False) the condition is a break per test; by default the
    loop runs as a body compiled once, its condition tested in Python (no break)."""
    def f(x):
        n = 0
        while x.max() > 1:                   # WHILE
            x = x / 2
            n += 1
        return x, n
    x = np.array([100.0, 3.0])
    assert npcompile.explain(f)(x).graph_break_count == 0
    npcompile.reset()
    e = npcompile.explain(npcompile.jit(f, loops=False))(x)
    assert e.graph_break_count == 8          # one per test of the condition
    rep = npcompile.report()["graph_breaks"]
    assert {(r["filename"], r["lineno"]) for r in rep} == {(__file__, line_of(f, "# WHILE"))}
    check(f, x)


def test_fullgraph_raises_at_first_break():
    def f(x):
        if x.sum() > 0:
            return x
        return -x
    with pytest.raises(npcompile.GraphBreakError, match="graph break at .*bool"):
        npcompile.jit(f, fullgraph=True)(make((4,), np.float64))


def test_break_leaves_inputs_consistent_when_user_code_raises():
    def f(x):
        x += 1
        raise KeyError("boom")
    x = make((3,), np.float64)
    before = x.copy()
    with pytest.raises(KeyError):
        npcompile.jit(f)(x)
    assert np.array_equal(x, before + 1)     # as eager NumPy: the update happened


def test_pending_values_computed_once_at_a_break():
    calls = []

    def f(x):
        y = np.exp(x)
        z = y * 2
        if z.sum() > 0:
            calls.append(1)
        return y + z
    e = npcompile.explain(f)(make((5,), np.float64))
    assert e.graph_count == 2
    ops_graph2 = npcompile.report()["compiles"][-1]["ops"]
    assert ops_graph2 == 1   # y and z are concrete after the break: only the add remains


def test_round_of_traced_values_is_python_rounding_of_numpy_scalars():
    """round() of an element (a NumPy scalar: round(x[i], 2) is a float64, round(x[i])
    an int) gives NumPy's value and type; of an array it raises NumPy's TypeError (it
    was a TypeError of LazyArray for elements too)."""
    f = lambda x: (round((x * 1.0)[0], 2), round((x * 1.0)[1]),  # noqa: E731
                   round((x * 1.0).astype(np.float32)[2], 1), round((x * 3).astype(int)[0], -1))
    check(f, np.array([1.23456, 2.5, 3.14159]))
    check(lambda x: round(x * 1.0), np.array([1.5, 2.5]))
    check(lambda x: round(np.sum(x * 1.0) * 1.0), np.array([1.5, 2.5]))
