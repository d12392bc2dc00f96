"""A jitted function called with Dask arrays (api/dask_chunks.py): Dask builds the graph,
npcompile compiles its fused chunk tasks on the workers of a distributed.LocalCluster of two
processes. Values, dtypes and shapes are NumPy's on the computed results; kernels ran on the
workers, named in the report; a layer compiles once per worker, not once per chunk; what
npcompile cannot express stays correct."""
import os
import pickle
import sys
from collections import Counter

import numpy as np
import pytest

import npcompile

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "bench"))
try:
    import workloads as seeds
except ImportError:       # ../shared is beside the clone in CI and here
    seeds = None


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None, silence_logs=40)
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


@pytest.fixture(autouse=True)
def fresh(client):
    npcompile.reset()
    npcompile.report()        # (the workers' records of earlier tests taken and dropped)
    npcompile.reset()


def check(got, want):
    got = np.asarray(got)
    want = np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype)
    if want.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    else:
        np.testing.assert_array_equal(got, want)


def compiled_on_workers(client):
    """(kernel records, compile records) the workers made, each naming its worker."""
    rep = npcompile.report()
    workers = set(client.scheduler_info()["workers"])
    kernels = [k for k in rep["kernels"] if k.get("worker") in workers]
    compiles = [c for c in rep["compiles"] if c.get("worker") in workers]
    return kernels, compiles


def pointwise(x, y):
    return np.sqrt(x * x + y * y) * np.exp(-x) + 1.0


def reductions(x):
    return (x.mean(axis=0), x.std(axis=0, ddof=1), x.var(), x.max(axis=1),
            np.argmin(x, axis=0), np.argmax(x, axis=1), (x * 2.0).sum())


def mixed(x, y):
    z = np.where(x > 0.5, np.sin(x), np.cos(y)) * 3.0
    return z - z.mean(axis=0), (z ** 2).sum(axis=1)


def test_pointwise_runs_compiled_on_the_workers_once_per_worker(client):
    rng = np.random.default_rng(1)
    xn, yn = rng.random((2000, 300)), rng.random((2000, 300))
    x, y = da.from_array(xn, chunks=(250, 300)), da.from_array(yn, chunks=(250, 300))
    out = npcompile.jit(pointwise)(x, y)
    assert isinstance(out, da.Array) and out.chunks == x.chunks
    check(out.compute(), pointwise(xn, yn))
    kernels, compiles = compiled_on_workers(client)
    assert kernels, "no kernel ran on a worker"
    assert {k["worker"] for k in kernels} <= set(client.scheduler_info()["workers"])
    per_worker = Counter((c["worker"], c["function"]) for c in compiles)
    assert per_worker and max(per_worker.values()) == 1, per_worker   # 8 chunks, 2 workers
    assert len({k["worker"] for k in kernels}) == 2


def test_reductions_keep_numpys_semantics(client):
    xn = np.random.default_rng(2).standard_normal((1200, 90))
    x = da.from_array(xn, chunks=(300, 45))
    got = da.compute(*npcompile.jit(reductions)(x))
    for g, w in zip(got, reductions(xn)):
        check(g, w)
    kernels, _ = compiled_on_workers(client)
    assert kernels
    # the chunk steps ran through runners on the workers; mean's aggregate step, over four
    # partial results of a few hundred bytes, as plain NumPy (dask_chunks.SMALL_BYTES)
    ran = {t["function"] for t in npcompile.report()["traces"] if t.get("worker")}
    assert {"dask chunk: mean_chunk", "dask chunk: var"} <= ran, ran
    assert "dask chunk: mean_agg" not in ran, ran


def test_an_axis_reductions_large_partials_are_aggregated_compiled(client):
    """Partial results above dask_chunks.SMALL_BYTES (a column sum's rows of 2,000) go
    through runners in the combine and aggregate steps too."""
    xn = np.random.default_rng(7).random((4000, 2000))
    x = da.from_array(xn, chunks=(500, 2000))
    check(npcompile.jit(lambda a: np.sin(a).sum(axis=0))(x).compute(), np.sin(xn).sum(axis=0))
    ran = Counter(t["function"] for t in npcompile.report()["traces"] if t.get("worker"))
    # the chunk layer's 8 calls, and the tree's steps over their 16 KB partials
    assert ran["dask chunk: sum"] > 8, ran


def test_mixed_programs_and_integer_input(client):
    rng = np.random.default_rng(3)
    xn, yn = rng.random((600, 400)), rng.random((600, 400))
    x, y = da.from_array(xn, chunks=(200, 200)), da.from_array(yn, chunks=(200, 200))
    for g, w in zip(da.compute(*npcompile.jit(mixed)(x, y)), mixed(xn, yn)):
        check(g, w)
    pop = rng.integers(1, 25, size=(3000, 64), dtype=np.int8)
    got = npcompile.jit(lambda p: np.sum(p, axis=1))(da.from_array(pop, chunks=(1000, 64)))
    check(got.compute(), np.sum(pop, axis=1))


@pytest.mark.skipif(seeds is None, reason="../shared/bench/workloads.py is not beside the clone")
@pytest.mark.parametrize("name", ["kmeans", "ga_fitness_sum", "ga_constraint_fitness",
                                  "ga_trig_fitness", "mc_pi", "sincos", "mul", "normalize_outer"])
def test_the_seed_workloads(client, name):
    inputs = seeds.make_inputs(name, scale=0.002)
    fn = seeds.WORKLOADS[name]
    chunked = [da.from_array(a, chunks=max(1, a.shape[0] // 4)) if a.ndim and a.shape[0] > 8
               else da.from_array(a) for a in inputs]
    got = npcompile.jit(fn)(*chunked)
    check(da.compute(got)[0], fn(*inputs))
    kernels, _ = compiled_on_workers(client)
    assert kernels, "no chunk of it ran compiled"


def test_what_npcompile_cannot_express_stays_correct(client):
    xn = np.random.default_rng(4).random((400, 50))
    x = da.from_array(xn, chunks=(100, 50))

    def wide(a):    # long double is not traced: it runs as NumPy, said in the report
        return (a * 2.0).astype(np.longdouble) + 1
    got = npcompile.jit(wide)(x).compute()
    check(got, wide(xn))
    rep = npcompile.report()
    said = [r for r in rep["fallbacks"] + rep["graph_breaks"] if r.get("worker")]
    assert said, "the workers' fallback was not reported"


def test_a_jitted_function_pickles_by_reference_and_runs_on_a_worker(client):
    j = npcompile.jit(pointwise)
    assert pickle.loads(pickle.dumps(j)).original is pointwise
    a, b = np.arange(6.0), np.ones(6)
    check(client.submit(j, a, b).result(), pointwise(a, b))


def test_dasks_own_threads_run_the_compiled_chunks_in_this_process():
    import dask
    xn = np.random.default_rng(5).random((800, 20))
    with dask.config.set(scheduler="threads"):     # not the cluster: this process's threads
        out = npcompile.jit(pointwise)(da.from_array(xn, chunks=200), 1.0)
        check(out.compute(), pointwise(xn, 1.0))
    kernels = npcompile.report()["kernels"]
    assert kernels and not any(k.get("worker") for k in kernels)


def test_a_cells_dask_arrays_get_compiled_chunks(client):
    from npcompile.api.cell import run_cell
    xn = np.random.default_rng(6).random((1000, 40))
    ns = {"np": np, "x": da.from_array(xn, chunks=(250, 40))}
    before = ns["x"]
    run_cell("y = np.sin(x) * 2.0 + 1.0\ns = y.sum(axis=0)", ns)
    assert ns["x"] is before                     # what the cell found is left alone
    assert isinstance(ns["y"], da.Array)
    check(ns["y"].compute(), np.sin(xn) * 2.0 + 1.0)
    check(ns["s"].compute(), (np.sin(xn) * 2.0 + 1.0).sum(axis=0))
    kernels, _ = compiled_on_workers(client)
    assert kernels
