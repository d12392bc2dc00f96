"""The tracer's C++ core (npcompile._native.trace): its types, the op recorder's fast path
against the Python rules, graph fingerprints, and the pure-Python path without it."""
import os
import subprocess
import sys

import numpy as np
import pytest

import npcompile
from npcompile.graph.node import Ref
from npcompile.trace.lazy_array import LazyArray
from npcompile.trace.native import core
from npcompile.trace.storage import Storage
from npcompile.trace.tracer import Tracer, current

from conftest import check

needs_core = pytest.mark.skipif(core is None, reason="npcompile._native.trace not built")


def _tracer():
    from npcompile.exec.engine import ENGINE, SiteInfo
    site = SiteInfo(("test", id(object())), "test", __file__, 0)
    return Tracer(site, {"device": "cpu", "fullgraph": False, "dynamic": None}, ENGINE)


@needs_core
def test_node_fields_leaf_and_make_concrete():
    a = np.arange(6.0).reshape(2, 3)
    leaf = core.Node.leaf(a, "x")
    assert leaf.is_leaf and leaf.value is a and leaf.label == "x"
    assert leaf.dtype == a.dtype and leaf.shape == (2, 3)
    n = core.Node(np.add, (Ref(0), 1.0), None, (leaf,), a.dtype, (2, 3), "add", ("f.py", 3))
    assert not n.is_leaf and n.id > leaf.id and n.inputs == (leaf,) and n.site == ("f.py", 3)
    assert repr(n) == f"Node({n.id}, add, float64, (2, 3))"
    n.make_concrete(a + 1)
    assert n.is_leaf and n.args == () and n.inputs == () and n.kwargs is None
    np.testing.assert_array_equal(n.value, a + 1)


@needs_core
def test_storage_and_lazy_array_are_the_core_types():
    assert issubclass(Storage, core.StorageBase) and issubclass(LazyArray, core.LazyBase)
    st = Storage(core.Node.leaf(np.zeros(3)), target=None, name="s")
    assert st.version == 0 and st.aliased is False and st.name == "s"
    st.write(core.Node.leaf(np.ones(3)))
    assert st.version == 1


@needs_core
def test_fast_path_records_what_the_python_rules_record():
    x = np.linspace(0, 1, 5)
    core.forget_learned()
    nodes = []
    for _ in range(2):  # first through the Python rules (learned), then in C++
        with _tracer() as t:
            lx = t.wrap_input(x, "x")
            r = np.sin(lx * 2.0) + lx
            nodes.append(r._n)
    assert core.learned_count() >= 3
    slow, fast = nodes
    for a, b in [(slow, fast), (slow.inputs[0], fast.inputs[0])]:
        assert (a.fn, a.label, a.dtype, a.shape, a.kwargs) == (b.fn, b.label, b.dtype, b.shape,
                                                               b.kwargs)
        assert a.args == b.args and a.site[0] == __file__ and a.site == b.site


@needs_core
def test_user_site_is_this_line():
    line = sys._getframe().f_lineno + 1
    assert core.user_site() == (__file__, line)


@needs_core
def test_current_tracer_is_per_context():
    assert current() is None
    with _tracer() as t:
        assert core.current() is t
        with t.suspended():
            assert current() is None
        assert current() is t
    assert current() is None


@pytest.mark.parametrize("k", [1, 200, 300, -1, 2**40, True, 2.5, -0.0])
def test_scalar_values_key_the_dtype_cache(k):
    """NumPy 1.x picks result dtypes by scalar value: each value is its own cache key."""
    a = np.arange(4, dtype=np.uint8)
    for _ in range(2):
        check(lambda x: x + k, a)
        check(lambda x: k * x - x, a)


def test_operators_keep_numpy_semantics():
    a = np.arange(1, 7, dtype=np.int32).reshape(2, 3)
    b = np.arange(3, dtype=np.int32) + 1
    for _ in range(2):
        check(lambda x, y: (x + y, x - y, y * x, x / y, x // y, x % y, -x, +x, abs(-x)), a, b)
        check(lambda x, y: (x & y, x | y, x ^ y, ~x, x << 1, x >> 1), a, b)
        check(lambda x, y: (x < y, x <= y, x == y, x != y, x > y, x >= y), a, b)
        check(lambda x, y: (2 - x, 3.0 / y, 1 < x), a, b)


def test_broadcast_error_is_numpys():
    with pytest.raises(ValueError):
        npcompile.jit(lambda x, y: x + y)(np.ones(3), np.ones(4))


@needs_core
def test_fingerprint_equal_for_equal_graphs_only():
    def fp(fn, *arrays):
        with _tracer() as t:
            out = fn(*[t.wrap_input(a, f"a{i}") for i, a in enumerate(arrays)])
            return core.collect_graph([out._n])
    x = np.ones(4)
    leaves, pending, f1 = fp(lambda a: a * 2.0 + 1.0, x)
    assert len(leaves) == 1 and [n.label for n in pending] == ["multiply", "add"]
    assert f1 == fp(lambda a: a * 2.0 + 1.0, x)[2]
    assert f1 != fp(lambda a: a * 3.0 + 1.0, x)[2]
    assert f1 != fp(lambda a: a * 2.0 + 1.0, np.ones(5))[2]
    assert f1 != fp(lambda a: a * 2.0 + 1.0, np.ones(8)[::2])[2]
    assert f1 != fp(lambda a: a * 2.0 + 1.0, np.ones(4, np.float32))[2]
    assert fp(lambda a: a * 0.0, x)[2] != fp(lambda a: a * -0.0, x)[2]


def test_cached_calls_hit_and_recompiles_keep_their_reasons():
    f = npcompile.jit(lambda a: np.exp(a) * 2.0)
    x = np.ones(4)
    for _ in range(3):
        np.testing.assert_allclose(f(x), np.exp(x) * 2.0)
    assert len(npcompile.report()["compiles"]) == 1
    f(np.ones(4, np.float32))
    rec = npcompile.report()["recompiles"]
    assert rec and "dtype float64 -> float32" in rec[-1]["reason"]
    f(x)
    assert len(npcompile.report()["compiles"]) == 2


def test_pure_python_path_without_the_core():
    """NPC_TRACE_CORE=0 (as where _native lacks the trace core): same results."""
    code = ("import numpy as np, npcompile\n"
            "from npcompile.trace.native import core\n"
            "assert core is None\n"
            "f = npcompile.jit(lambda x, y: np.sin(x * y + 1) - (y < 2))\n"
            "x, y = np.arange(6.0), np.full(6, 2.0)\n"
            "for _ in range(2):\n"
            "    np.testing.assert_allclose(f(x, y), np.sin(x * y + 1) - (y < 2))\n"
            "print('ok')\n")
    env = dict(os.environ, NPC_TRACE_CORE="0")
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr
