"""What the CPU backend does for speed, checked for what it must not change: pooled
output buffers, constant strides for views of computed arrays, parallel full
reductions (deterministic), and results equal to NumPy's throughout."""
import gc
import os
import sys

import numpy as np
import pytest

import npcompile
from npcompile.backends import cpu
from conftest import check, make

pytestmark = pytest.mark.skipif(not cpu.AVAILABLE or os.environ.get("NPC_BACKEND") == "reference",
                                reason="compiled CPU path not in use")
sys.path.insert(0, os.environ.get("NPC_BENCH_DIR") or
                os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "bench"))
import workloads  # noqa: E402


def program_of(fn, *args):
    npcompile.reset()
    out = npcompile.jit(fn)(*args)
    entries = list(npcompile.ENGINE.cache.entries.values())
    assert len(entries) == 1
    assert entries[0].compiled is not None, npcompile.report()["fallbacks"]
    return entries[0].compiled, out


def sources(p):
    return [step.kernel.source for kind, step in p.steps if kind == "kernel"]


def test_large_outputs_come_from_the_pool_and_go_back():
    from npcompile._native import cpu as native
    a = make((600, 700), np.float64)
    out = npcompile.jit(lambda x: x * 2.0 + 1.0)(a)
    assert out.flags.writeable and out.flags.c_contiguous
    assert type(out.base).__name__ == "PyCapsule"  # the pool's block, not NumPy's
    np.testing.assert_array_equal(out, a * 2.0 + 1.0)
    out[0, 0] = 7  # ours to write
    native.pool_clear()
    block = native.empty([600, 700], np.dtype(np.float64))
    del block
    gc.collect()
    assert native.pool_cached_bytes() >= a.nbytes
    again = native.empty([700, 600], np.dtype(np.float64))  # same size: the same block
    assert native.pool_cached_bytes() == 0
    del again


def test_pool_arrays_of_every_dtype_and_shape():
    from npcompile._native import cpu as native
    for dt in (np.int8, np.uint16, np.int32, np.float32, np.float64, np.bool_):
        for shape in ((), (0,), (3,), (1 << 18,), (5, 0, 2), (513, 1031)):
            arr = native.empty(list(shape), np.dtype(dt))
            assert arr.shape == shape and arr.dtype == dt and arr.flags.c_contiguous
            arr[...] = 1
            assert (arr == 1).all()


def test_views_of_computed_arrays_have_constant_strides():
    X, Y = workloads.make_inputs("normalize_outer", np.float64)
    X, Y = X[:48, :40], Y[:48, :40]
    p, out = program_of(workloads.normalize_outer, X, Y)
    assert not any("P[" in s for s in sources(p))
    np.testing.assert_allclose(out, workloads.normalize_outer(X, Y), rtol=1e-12)
    # same program again, same answer (the stand-ins are not kept)
    np.testing.assert_allclose(npcompile.jit(workloads.normalize_outer)(X, Y),
                               workloads.normalize_outer(X, Y), rtol=1e-12)


@pytest.mark.parametrize("view", [lambda c: c[:, None, :], lambda c: c.T, lambda c: c[1:, ::2],
                                  lambda c: c.reshape(-1), lambda c: c[::-1]])
def test_kernel_reading_a_view_of_a_kernel_output(view):
    def f(x, y):
        c = np.exp(x) - y
        return np.sum(view(c) * 2.0)
    check(f, make((9, 11), np.float64), make((9, 11), np.float64, 1))
