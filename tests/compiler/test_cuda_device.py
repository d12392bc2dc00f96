"""device="cuda" on a GPU: seed workloads on device-resident data equal NumPy's results,
results stay on the device and feed the next compiled call without a copy, transfers
are recorded, reductions are deterministic. Skipped where there is no GPU."""
import os
import sys
import warnings

import numpy as np
import pytest

import npcompile
from npcompile.backends import cuda_runtime

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.environ.get("NPC_BENCH_DIR") or os.path.join(HERE, "..", "..", "..", "shared", "bench"))
from workloads import WORKLOADS, make_inputs  # noqa: E402

GPU, WHY = cuda_runtime.available()
pytestmark = pytest.mark.skipif(not GPU, reason=f"no GPU: {WHY}")

SEEDS = [(name, dt) for name in WORKLOADS
         for dt in (["int8"] if name == "ga_fitness_sum" else ["float32", "float64"])]


def transfers(direction):
    return [t for t in npcompile.report()["transfers"] if t["direction"] == direction]


@pytest.mark.parametrize("name,dt", SEEDS)
def test_seed_on_device_equals_numpy(name, dt):
    args = make_inputs(name, np.dtype(dt), scale=0.05)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exp = WORKLOADS[name](*args)
        dargs = [npcompile.to_device(a) for a in args]
        f = npcompile.jit(WORKLOADS[name], device="cuda")
        got = f(*dargs)
        again = f(*[npcompile.to_device(a) for a in args])  # replayed: no trace
    assert isinstance(got, npcompile.DeviceArray)
    g = got.get()
    assert np.array_equal(again.get(), g, equal_nan=True)
    assert [t.get("replay", False) for t in npcompile.report()["traces"]][-1]
    e = np.asarray(exp)
    assert g.dtype == e.dtype and g.shape == e.shape
    if name == "normalize_outer":
        # a float sum of 409600 products that cancel: NumPy's own error dominates, so
        # ours must be at least as close as NumPy's to the extended-precision value
        with np.errstate(all="ignore"):
            ref = WORKLOADS[name](*[a.astype(np.longdouble) for a in args])
        tol = 8 * np.finfo(e.dtype).eps * np.max(np.abs(ref))
        assert np.max(np.abs(g - ref)) <= 2 * np.max(np.abs(e - ref)) + tol
        return
    rtol = 2e-5 if dt == "float32" else 1e-12
    np.testing.assert_allclose(g, e, rtol=rtol, atol=rtol if dt.startswith("float") else 0)
    kinds = {k["target"] for k in npcompile.report()["kernels"]}
    assert "cuda" in kinds


def test_results_stay_on_device_and_are_reused_without_copies():
    x = np.random.default_rng(0).standard_normal(1 << 20).astype(np.float32)
    f = npcompile.jit(lambda v: np.sin(v) * 2, device="cuda")
    g = npcompile.jit(lambda v: v + 1, device="cuda")
    d = npcompile.to_device(x)
    npcompile.reset()
    y = g(f(d))
    assert isinstance(y, npcompile.DeviceArray)
    assert transfers("h2d") == [] and transfers("d2h") == []
    host = np.asarray(y)  # plain NumPy consumes it: one recorded copy to the host
    assert len(transfers("d2h")) == 1 and transfers("d2h")[0]["bytes"] == x.nbytes
    np.testing.assert_allclose(host, np.sin(x) * 2 + 1, rtol=2e-6, atol=2e-6)


def test_host_inputs_are_uploaded_and_recorded():
    x = np.arange(1000, dtype=np.float64)
    npcompile.reset()
    y = npcompile.jit(lambda v: v * v, device="cuda")(x)
    assert [t["bytes"] for t in transfers("h2d")] == [x.nbytes]
    np.testing.assert_array_equal(y.get(), x * x)


def test_device_views_and_in_place_updates():
    a = np.arange(24, dtype=np.float32).reshape(4, 6)
    d = npcompile.to_device(a)
    np.testing.assert_array_equal(d[1:, ::2].get(), a[1:, ::2])
    np.testing.assert_array_equal(d.T.get(), a.T)
    np.testing.assert_array_equal(d[:, 0].get(), a[:, 0])

    def bump(v):
        v += 1
        return v.sum(axis=1)
    f = npcompile.jit(bump, device="cuda")
    b = a.copy()
    for _ in range(3):  # the second and third calls replay the first
        got = f(d)
        exp = bump(b)
        np.testing.assert_array_equal(d.get(), b)  # the write landed in the device array
        np.testing.assert_allclose(got.get(), exp)
    assert sum(1 for t in npcompile.report()["traces"] if t.get("replay")) == 2


def test_full_reductions_are_deterministic_and_nan_aware():
    x = np.random.default_rng(1).standard_normal(3_000_000)
    d = npcompile.to_device(x)
    f = npcompile.jit(lambda v: (v.sum(), v.max(), v.argmin(), np.mean(v * v)), device="cuda")
    r1 = [v.get() for v in f(d)]
    r2 = [v.get() for v in f(d)]
    assert all(np.array_equal(a, b) for a, b in zip(r1, r2))
    np.testing.assert_allclose(r1[0], x.sum(), rtol=1e-10)
    assert r1[1] == x.max() and r1[2] == x.argmin()
    x[12345] = np.nan
    x[23456] = np.nan
    r = [v.get() for v in f(npcompile.to_device(x))]
    assert np.isnan(r[0]) and np.isnan(r[1]) and r[2] == 12345


def test_argmax_rows_ties_take_the_first():
    x = np.zeros((300, 5000), np.int16)
    x[:, 7] = 3
    x[:, 4000] = 3
    got = npcompile.jit(lambda v: np.argmax(v, axis=1), device="cuda")(npcompile.to_device(x))
    assert (got.get() == 7).all()


def test_kernel_timings_reach_the_profiler():
    npcompile.reset()
    x = npcompile.to_device(np.ones((2000, 3000), np.float32))
    npcompile.jit(lambda v: (v * 2).sum(axis=1), device="cuda")(x)
    runs = [k for k in npcompile.report()["kernels"] if k["target"] == "cuda"]
    assert runs and all(k["wall_ms"] > 0 for k in runs)


def test_repeated_calls_take_views_of_new_inputs():
    # from the second call on, views of device leaves are built without NumPy
    f = npcompile.jit(WORKLOADS["ga_constraint_fitness"], device="cuda")
    for seed in range(3):
        s = np.random.default_rng(seed).uniform(-25, 25, (5000, 3))
        got = f(npcompile.to_device(s)).get()
        np.testing.assert_allclose(got, WORKLOADS["ga_constraint_fitness"](s), rtol=1e-12)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.bool_, np.int16, np.uint16])
@pytest.mark.parametrize("offset", [0, 1])
def test_packed_row_sums(dtype, offset):
    # rows read 8 bytes at a time when aligned; a view one element in is not aligned
    rng = np.random.default_rng(0)
    full = rng.integers(-128 if np.dtype(dtype).kind == "i" else 0, 127, 700_001).astype(dtype)
    d = npcompile.to_device(full)
    view = d[offset:offset + 700_000].reshape(700, 1000)  # contiguous, maybe misaligned
    host = full[offset:offset + 700_000].reshape(700, 1000)
    got = npcompile.jit(lambda v: np.sum(v, axis=1), device="cuda")(view)
    np.testing.assert_array_equal(got.get(), np.sum(host, axis=1))


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.bool_, np.int16, np.uint16])
@pytest.mark.parametrize("n", [1, 7, 15, 16, 17, 31, 33, 1000, 4099])
def test_packed_row_sums_of_any_length_and_offset(dtype, n):
    # rows shorter than a 16-byte word, and heads and tails of every length
    rng = np.random.default_rng(n)
    lo = -128 if np.dtype(dtype).kind == "i" else 0
    full = rng.integers(lo, 127, 40 * n + 16).astype(dtype)
    d = npcompile.to_device(full)
    f = npcompile.jit(lambda v: np.sum(v, axis=1), device="cuda")
    for offset in (0, 3, 8):
        got = f(d[offset:offset + 40 * n].reshape(40, n)).get()
        np.testing.assert_array_equal(got, np.sum(full[offset:offset + 40 * n].reshape(40, n), axis=1))
    # a full sum: the grid's lanes split one long row
    got = npcompile.jit(lambda v: np.sum(v), device="cuda")(d[1:]).get()
    assert got == np.sum(full[1:]) and got.dtype == np.sum(full[1:]).dtype


@pytest.mark.parametrize("n", [1, 255, 256 * 8 + 1, 1_000_003])
def test_tiled_pointwise_and_tails(n):
    x = np.random.default_rng(n).standard_normal(n)
    for dt in (np.float32, np.float64):
        v = x.astype(dt)
        got = npcompile.jit(lambda a: np.sin(a) + np.cos(a) * a, device="cuda")(npcompile.to_device(v)).get()
        np.testing.assert_allclose(got, np.sin(v) + np.cos(v) * v, rtol=1e-5 if dt == np.float32 else 1e-13,
                                   atol=1e-6 if dt == np.float32 else 1e-14)


def test_sincos_has_the_bits_of_sin_and_cos():
    x = np.concatenate([np.random.default_rng(2).uniform(-1e7, 1e7, 100_000),
                        [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-310, 3e38, np.pi]])
    for dt in (np.float32, np.float64):
        d = npcompile.to_device(x.astype(dt))
        s_c = npcompile.jit(lambda a: (np.sin(a), np.cos(a)), device="cuda")
        both = [r.get() for r in s_c(d)]
        alone = [npcompile.jit(f, device="cuda")(d).get() for f in (lambda a: np.sin(a), lambda a: np.cos(a))]
        for a, b in zip(both, alone):
            np.testing.assert_array_equal(a, b)


def test_grid_argmax_ties_and_tails_take_the_first():
    for n in (1_000_003, 5_000_000):
        x = np.zeros(n, np.float32)
        x[[n - 1, 777_777, 123_457]] = 5
        f = npcompile.jit(lambda v: (np.argmax(v), np.argmin(-v), v.sum()), device="cuda")
        got = [r.get() for r in f(npcompile.to_device(x))]
        assert got[0] == 123_457 and got[1] == 123_457 and got[2] == 15


def test_cell_results_stay_on_device():
    ns = {"np": np, "x": npcompile.to_device(np.arange(10.0))}
    npcompile.run_cell("y = np.sin(x) * 2\nz = y + x", ns, device="cuda")
    assert isinstance(ns["z"], npcompile.DeviceArray)
    np.testing.assert_allclose(ns["z"].get(), np.sin(np.arange(10.0)) * 2 + np.arange(10.0))


def test_graph_launches_equal_direct_launches_bit_for_bit(monkeypatch):
    args = make_inputs("normalize_outer", np.float32)
    dargs = [npcompile.to_device(a) for a in args]
    with_graphs = npcompile.jit(WORKLOADS["normalize_outer"], device="cuda")
    got = [with_graphs(*dargs).get() for _ in range(3)]   # runs 2 and 3 are graph launches
    monkeypatch.setattr(cuda_runtime, "GRAPHS", False)
    direct = npcompile.jit(lambda X, Y: WORKLOADS["normalize_outer"](X, Y), device="cuda")
    exp = [direct(*dargs).get() for _ in range(2)]
    assert all(np.array_equal(g, exp[0]) for g in got + exp)


def test_pipelined_graph_launches_keep_every_kernel_time():
    # calls do not wait: a graph launched again before its last times were read records
    # into fresh events, so no time is lost or read twice
    npcompile.reset()
    f = npcompile.jit(WORKLOADS["normalize_outer"], device="cuda")
    dargs = [npcompile.to_device(a) for a in make_inputs("normalize_outer", np.float64)]
    outs = [f(*dargs) for _ in range(20)]
    runs = [k for k in npcompile.report()["kernels"] if k["target"] == "cuda"]
    per_call = len(runs) // 20
    assert per_call >= 2 and len(runs) == 20 * per_call
    assert all(k["wall_ms"] > 0 for k in runs)
    assert all(np.array_equal(o.get(), outs[0].get()) for o in outs)
    program = f._plans[next(iter(f._plans))].program
    assert not program.graph_refusal and program._graphs


def test_in_place_updates_of_strided_device_views():
    def f(x):
        x[:, 0] *= 2
        x[::-1, 2] = x[:, 1] + 1
        return x.sum(axis=1)
    h = np.random.default_rng(3).standard_normal((1000, 3))
    d = npcompile.to_device(h)
    jf = npcompile.jit(f, device="cuda")
    got = [jf(d).get() for _ in range(3)]   # the second and third replay
    exp = [f(h) for _ in range(3)]
    for g, e in zip(got, exp):
        np.testing.assert_allclose(g, e, rtol=1e-12)
    np.testing.assert_allclose(d.get(), h, rtol=1e-12)


@pytest.mark.parametrize("offset", [0, 1, 2])
@pytest.mark.parametrize("n", [3, 4097, 1_000_003])
def test_vector_access_with_misaligned_views_and_tails(offset, n):
    # a view `offset` elements in is not 16-byte aligned: the kernel takes its scalar loop;
    # the same program then runs on an aligned array (the vector loop) with equal results
    rng = np.random.default_rng(n + offset)
    for dt in (np.float32, np.float64, np.int32):
        h = (rng.standard_normal(n + 2) * 100).astype(dt)
        x, y = h[offset:offset + n], h[::-1][:n].copy()
        f = npcompile.jit(lambda a, b: (a * 3 + b, (a * b).sum(), (a <= b).mean()), device="cuda")
        for args in ((x, y), (x.copy(), y)):
            d = [npcompile.to_device(a) for a in args]
            if offset:
                d[0] = npcompile.to_device(h)[offset:offset + n]
            got = [np.asarray(r.get()) for r in f(*d)]
            exp = [np.asarray(e) for e in (x * 3 + y, (x * y).sum(), (x <= y).mean())]
            for g, e in zip(got, exp):
                assert g.dtype == e.dtype and g.shape == e.shape
                if dt == np.int32:
                    assert np.array_equal(g, e)
                else:
                    np.testing.assert_allclose(g, e, rtol=2e-5 if dt == np.float32 else 1e-12)


def _binned(x, bins):
    idx = np.clip(((x + 30) / 60 * bins).astype(np.int64), 0, bins - 1)
    return idx * 2, x.sum().astype(np.int32)


def test_checked_casts_run_compiled_and_flag_what_numpy_must_handle():
    """In range, the flagged kernels run compiled; a NaN cast to int sets the device
    flag word, and the graph reruns in NumPy (NumPy's values, a recorded fallback)."""
    x = np.linspace(-40, 40, 100_000)
    npcompile.reset()
    f = npcompile.jit(_binned, device="cuda", choose=False)
    got = f(x, 7)
    exp = _binned(x, 7)
    np.testing.assert_array_equal(got[0].get(), exp[0])
    assert got[1].get()[()] == exp[1]
    assert npcompile.report()["fallbacks"] == []
    bad = x.copy()
    bad[10] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exp = _binned(bad, 7)
        got = f(bad, 7)
    # the rerun is NumPy's on the host: its results may come back as host arrays
    first = got[0].get() if isinstance(got[0], npcompile.DeviceArray) else got[0]
    np.testing.assert_array_equal(first, exp[0])
    assert any("NumPy must handle" in r["reason"] for r in npcompile.report()["fallbacks"])


def test_cuda_graphs_follow_the_kernels_of_each_run():
    """Calls that stopped at the compile budget and went on compiling, then more calls
    of another jit of the same function (bench/run_programs.py's order): a view step
    taken on the device in one run and by NumPy in another splits the kernels into other
    runs, and each run's CUDA graph must be the one made for those kernels (a graph made
    for another run failed its launch: "one pointer and one parameter list per kernel",
    and the call ran in NumPy)."""
    sys.path.insert(0, os.path.join(HERE, "..", "..", "bench", "programs"))
    import wave_point_source as wave   # a leapfrog wave step: arrays rotate, a source view
    npcompile.reset()
    args = wave.make_inputs("small")
    want = wave.run(*args)
    for j, calls in ((npcompile.jit(wave.run, device="cuda"), 13),
                     (npcompile.jit(wave.run, device="cuda", choose=False), 6)):
        for _ in range(calls):
            got = j(*args)
            # what device="cuda" promises on either path (a graph run in NumPy included)
            assert type(got).__name__ == "DeviceArray", type(got)
            np.testing.assert_allclose(got.get(), want, rtol=1e-12, atol=1e-300)
    reasons = [f["reason"] for f in npcompile.report()["fallbacks"]]
    assert not any("LaunchGraph" in r for r in reasons), reasons


@pytest.fixture
def every_cuda_kernel_symbolic(monkeypatch):
    from npcompile.backends import cuda as cuda_backend
    every = lambda steps: {i for i, s in enumerate(steps) if s[0] == "kernel"}  # noqa: E731
    monkeypatch.setattr(cuda_backend, "sized_alike", every)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_symbolic_kernels_on_the_gpu_match_numpy(every_cuda_kernel_symbolic, dtype):
    """Kernels whose sizes, view offsets, fixed indices and constants come from P at
    run time (one NVRTC compile for every k of a loop) compute what NumPy computes."""
    from test_symbolic_sizes import PROGRAMS
    from conftest import make
    a = make((6, 9), dtype, seed=11)
    for name, fn in sorted(PROGRAMS.items()):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with np.errstate(all="ignore"):
                exp = fn(a.copy())
                got = npcompile.jit(fn, device="cuda")(a.copy())
        got = got.get() if isinstance(got, npcompile.DeviceArray) else np.asarray(got)
        assert got.dtype == np.asarray(exp).dtype and got.shape == np.shape(exp), name
        np.testing.assert_allclose(got, exp, rtol=1e-5 if dtype == np.float32 else 1e-12,
                                   err_msg=name)
    srcs = [k["source"] for k in npcompile.report()["kernel_sources"] if k["target"] == "cuda"]
    assert srcs and any("given at run time" in s for s in srcs)
    # (a fresh machine's first NVRTC compiles may run past the call's compile budget:
    # the rest of that call runs in NumPy, as designed, and the next compiles on)
    assert not [f for f in npcompile.report()["fallbacks"] if "compile budget" not in f["reason"]]


def _thomas(a, b, c, d):
    n = len(d)
    cp, dp, x = np.zeros(n), np.zeros(n), np.zeros(n)
    cp[0], dp[0] = c[0] / b[0], d[0] / b[0]
    for i in range(1, n):
        m = b[i] - a[i] * cp[i - 1]
        cp[i] = c[i] / m
        dp[i] = (d[i] - a[i] * dp[i - 1]) / m
    x[-1] = dp[-1]
    for i in range(n - 2, -1, -1):
        x[i] = dp[i] - cp[i] * x[i + 1]
    return x


def test_scalar_loop_nests_between_gpu_kernels_run_on_the_host():
    """The Thomas algorithm inside a device="cuda" function: its arrays are made by GPU
    kernels, its loops run compiled on the host, and the result equals NumPy's."""
    rng = np.random.default_rng(0)
    args = rng.random(200), rng.random(200) + 3, rng.random(200), rng.random(200)
    exp = _thomas(*args)
    got = npcompile.jit(_thomas, device="cuda")(*[npcompile.to_device(v) for v in args])
    got = got.get() if isinstance(got, npcompile.DeviceArray) else got
    assert np.array_equal(got, exp)
    from npcompile.backends import cpu
    if cpu.AVAILABLE:   # (the GPU machine's build has no LLVM: the loops are traced there)
        assert sum("on the host" in r["summary"] for r in npcompile.report()["loops"]) == 2


@pytest.mark.parametrize("shape,axis", [((9,), None), ((300, 7), 1), ((50, 128), 1),
                                        ((40, 33), 0), ((5, 3, 17), 2)])
def test_short_float32_sums_are_numpys_bits(shape, axis):
    """Short float32 sums on the GPU add in NumPy's order: the same bits."""
    v = (np.random.default_rng(7).standard_normal(shape) * 1000).astype(np.float32)
    fn = lambda a: a.sum(axis=axis) / 3.0  # noqa: E731
    got = npcompile.jit(fn, device="cuda")(npcompile.to_device(v))
    got = got.get() if isinstance(got, npcompile.DeviceArray) else np.asarray(got)
    assert np.array_equal(got, fn(v))
