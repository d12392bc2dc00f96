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
    gc.collect()    # earlier tests' garbage (cycles) would hand blocks back in between
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


def _split_kernels(p):
    return [step for kind, step in p.steps if kind == "kernel" and step.part_address is not None]


def test_mc_pi_mean_runs_as_parallel_partials():
    x, y = workloads.make_inputs("mc_pi", np.float64, scale=0.05)
    p, out = program_of(workloads.mc_pi, x, y)
    assert len(_split_kernels(p)) == 1
    assert out == workloads.mc_pi(x, y)


@pytest.mark.parametrize("fn", [
    lambda a: np.sum(a * 2.0), lambda a: np.max(np.abs(a)), lambda a: np.min(a - 1),
    lambda a: np.sum(a) / np.prod(a[:3]), lambda a: np.any(a > 40.0), lambda a: np.all(a > -1e9),
    lambda a: (np.sum(a), np.max(a)), lambda a: np.mean(a) + np.sum(a * a),
    lambda a: np.sum(np.sqrt(np.abs(a)), axis=None, keepdims=True),
])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_full_reductions_split_match_numpy(fn, dtype):
    a = make((700, 300), dtype)
    check(fn, a)


def test_full_reduction_with_nan_in_one_chunk():
    a = make((400_000,), np.float64)
    a[123_457] = np.nan
    check(lambda x: np.max(x), a)
    check(lambda x: np.min(x * 2), a)
    check(lambda x: np.sum(x), a)


def test_integer_full_sum_wraps_like_numpy():
    a = np.full((300_000,), 2 ** 62, dtype=np.int64)
    check(lambda x: np.sum(x), a)
    check(lambda x: np.sum(x.astype(np.int16)), make((300_000,), np.int8))


def test_split_reduction_is_deterministic_for_any_thread_count():
    from npcompile._native import cpu as native
    rng = np.random.default_rng(3)
    a = (rng.standard_normal(1_000_003) * 1e6).astype(np.float32)
    f = lambda x: np.sum(x * x) - np.sum(x)  # noqa: E731
    before = native.num_threads()
    try:
        results = set()
        for threads in (1, 2, 3, 5):
            native.set_num_threads(threads)
            for _ in range(3):
                npcompile.reset()
                results.add(float(npcompile.jit(f)(a)))
        assert len(results) == 1, results
    finally:
        native.set_num_threads(before)
    p, out = program_of(f, a)
    assert len(_split_kernels(p)) == 1
    np.testing.assert_allclose(out, f(a), rtol=1e-6)


def test_std_over_everything_stays_serial_and_right():
    a = make((500, 400), np.float64)
    p, out = program_of(lambda x: np.std(x), a)
    assert not _split_kernels(p)  # a reduction over a reduction: one pass each, serial
    np.testing.assert_allclose(out, np.std(a), rtol=1e-12)


def test_kernels_of_a_graph_compile_as_a_few_modules():
    from npcompile.backends import cpu_units
    from npcompile.codegen.cpp_ops import PRELUDE
    X, Y = workloads.make_inputs("normalize_outer", np.float64)
    X, Y = X[:40, :24], Y[:40, :24]
    p, out = program_of(workloads.normalize_outer, X, Y)
    kernels = [step.kernel for kind, step in p.steps if kind == "kernel"]
    assert len(kernels) >= 2
    assert 1 <= len(p.module_sources) <= min(len(kernels), cpu_units._cores())
    for src in p.module_sources:
        assert src.count(PRELUDE) == 1
        assert src.count('extern "C" double sqrt(double);') <= 1
    for k in kernels:  # each kernel in exactly one unit, as users read it
        assert sum(k.body in src for src in p.module_sources) == 1 and k.body in k.source
    np.testing.assert_allclose(out, workloads.normalize_outer(X, Y), rtol=1e-12)


def test_units_balance_source_length_and_keep_kernel_order():
    from npcompile.backends.cpu_units import units_of

    class K:
        def __init__(self, n):
            self.body = "x" * n
    ks = [K(10), K(50), K(30), K(25)]
    assert units_of(ks, 1) == [ks]
    two = units_of(ks, 2)
    assert sorted(sum(len(k.body) for k in g) for g in two) == [55, 60]
    for g in two:
        assert g == sorted(g, key=ks.index)
    assert len(units_of(ks[:1], 8)) == 1


def test_reduction_work_splits_few_rows_across_threads():
    from npcompile.backends.cpu_step_program import MIN_CHUNK_ELEMENTS
    X, Y = workloads.make_inputs("normalize_outer", np.float64)
    p, _ = program_of(workloads.normalize_outer, X[:64], Y[:64])
    last = [step for kind, step in p.steps if kind == "kernel"][-1]
    assert last.kernel.shape == (64,)
    assert MIN_CHUNK_ELEMENTS // last.row_work <= 1  # one row per grain: 64 chunks to share


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_mean_and_the_mean_inside_std_are_one_sum(dtype):
    import re
    X = make((300, 24), dtype)

    def f(x):
        return x.mean(axis=0), x.std(axis=0)
    p, out = program_of(f, X)
    sums = sum(len(re.findall(r"\b(?:double|float) acc\d+ = 0;", s)) for s in sources(p))
    assert sums == 2  # the mean (both uses) and the squared deviations
    check(f, X)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_mean_of_a_comparison_is_an_integer_count(dtype):
    x = make((700, 300), dtype)

    def f(a):
        return (np.mean(a <= 1), np.mean(a > 0, axis=1), np.mean(a < 2, axis=0, keepdims=True),
                (a > 3).astype(np.float32).sum(axis=1))
    p, _ = program_of(f, x)
    text = "".join(sources(p))
    assert "i64 acc" in text and "lane" not in text  # counted exactly, no float lanes
    assert len(_split_kernels(p)) == 1  # the full mean still runs as parallel partials
    check(f, x)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_units_compile_in_a_forked_child():
    X, Y = workloads.make_inputs("normalize_outer", np.float64)
    X, Y = X[:30, :20], Y[:30, :20]
    program_of(workloads.normalize_outer, X, Y)  # the parent's compile threads exist now
    pid = os.fork()
    if pid == 0:  # the child compiles a new multi-kernel graph: its own threads
        import signal
        signal.alarm(10)  # a child waiting on its parent's threads dies instead of hanging
        try:
            npcompile.reset()
            got = npcompile.jit(workloads.normalize_outer)(X[:, :19], Y[:, :19])
            ok = np.allclose(got, workloads.normalize_outer(X[:, :19], Y[:, :19]), rtol=1e-12)
            os._exit(0 if ok else 1)
        except BaseException:
            os._exit(2)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status
