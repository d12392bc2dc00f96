"""Guards and cache: hits, recompiles with the failed guard in words, dynamic dims."""
import os

import numpy as np
import pytest

import npcompile
from npcompile.backends import cpu
from conftest import make, same


def f(x):
    return np.sin(x) * 2 + 1


def test_cache_hit_then_dtype_recompile():
    jf = npcompile.jit(f)
    jf(make((10,), np.float64))
    jf(make((10,), np.float64, 1))
    assert len(npcompile.report()["compiles"]) == 1
    jf(make((10,), np.float32))
    rec = npcompile.report()["recompiles"]
    assert len(rec) == 1
    assert rec[0]["reason"] == "x: dtype float64 -> float32"
    assert rec[0]["function"].endswith("f") and rec[0]["filename"] == __file__


def test_shape_change_becomes_dynamic():
    jf = npcompile.jit(f)
    jf(make((10,), np.float64))
    jf(make((20,), np.float64))
    jf(make((30,), np.float64))
    jf(make((40,), np.float64))
    rec = npcompile.report()["recompiles"]
    assert [r["reason"] for r in rec] == ["x: shape[0] 10 -> 20, now dynamic"]
    assert len(npcompile.report()["compiles"]) == 2


def test_static_shapes_recompile_every_time():
    jf = npcompile.jit(f, dynamic=False)
    for n in (10, 20, 30):
        jf(make((n,), np.float64))
    rec = npcompile.report()["recompiles"]
    assert len(rec) == 2 and "static" in rec[1]["reason"]


def test_dynamic_true_never_recompiles_on_shape():
    jf = npcompile.jit(f, dynamic=True)
    for n in (10, 20, 30):
        jf(make((n,), np.float64))
    assert npcompile.report()["recompiles"] == []


SCALE = 2.0


def _scaled_by_global(x):
    return x * SCALE


def test_constant_change_recompiles():
    global SCALE
    jg = npcompile.jit(_scaled_by_global)
    jg(make((4,), np.float64))
    jg(make((4,), np.float64))
    SCALE = 3.0
    try:
        jg(make((4,), np.float64))
    finally:
        SCALE = 2.0
    rec = npcompile.report()["recompiles"]
    assert len(rec) == 1 and "2.0 -> 3.0" in rec[0]["reason"]


@pytest.mark.skipif(not cpu.AVAILABLE or os.environ.get("NPC_BACKEND") == "reference" or
                    os.environ.get("NPC_TEST_DEVICE") == "cuda",
                    reason="replay needs the compiled CPU backend")
def test_a_new_float_argument_value_recompiles_once_as_a_run_time_value():
    """api/dynamic_args.py: the first new value recompiles, with the argument an input
    of the graph (said in the reason); later values replay."""
    def g(x, k):
        return x * k
    jg = npcompile.jit(g)
    for k in (2.0, 2.0, 3.0, 4.0, 5.5):
        same(jg(make((4,), np.float64), k), g(make((4,), np.float64), k))
    rec = npcompile.report()["recompiles"]
    assert len(rec) == 1 and "k (a float argument, now read at run time)" in rec[0]["reason"]


def test_layout_is_guarded():
    jf = npcompile.jit(f)
    x = make((6, 4), np.float64)
    jf(x)
    r = jf(x.T)
    same(r, f(x.T))
    assert "layout C -> F" in npcompile.report()["recompiles"][0]["reason"]


def test_options_validated():
    with pytest.raises(ValueError, match="device"):
        npcompile.jit(f, device="tpu")
    with pytest.raises(ValueError, match="dynamic"):
        npcompile.jit(f, dynamic="yes")
    with pytest.raises(TypeError):
        npcompile.jit(42)


def test_a_recompile_with_an_input_more_names_it_not_the_ones_after_it():
    """Inputs matched by name where one came or went: by position every later input was
    said to have changed into the next one ("acc_count: ndim 2 -> 0")."""
    from npcompile.graph.cache import diff
    f64, i64 = np.dtype("float64"), np.dtype("int64")
    old = [("x", f64, (4, 4), "C"), ("acc", f64, (4,), "C")]
    new = [("x", f64, (4, 4), "C"), ("noise", f64, (4, 4), "C"), ("acc", i64, (4,), "C")]
    ops = ((), ())
    got = diff(old, new, ops, ops, (), None)
    assert "new input noise" in got and "acc: dtype float64 -> int64" in got
    assert "number of input arrays 2 -> 3" in got
    assert not any(r.startswith("noise:") for r in got)
