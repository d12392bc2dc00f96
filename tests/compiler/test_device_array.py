"""DeviceArray without a GPU, over fake_cuda (device memory as host bytes): views keep
NumPy's layouts, copies and writes land where NumPy's would, transfers are recorded,
NumPy functions consume device arrays through the host."""
import os

import numpy as np
import pytest

import npcompile
from npcompile.backends import cpu, cuda_runtime

from fake_cuda import FakeCuda


@pytest.fixture(autouse=True)
def fake(monkeypatch):
    f = FakeCuda(cuda_runtime._cuda)
    monkeypatch.setattr(cuda_runtime, "_cuda", f)
    monkeypatch.setattr(cuda_runtime, "_INFO", None)
    return f


def host(shape=(4, 6), dtype=np.float32):
    return np.arange(np.prod(shape), dtype=dtype).reshape(shape)


@pytest.mark.parametrize("view", [
    lambda a: a[1:, ::2], lambda a: a[::-1], lambda a: a[:, 0], lambda a: a[None, 2],
    lambda a: a[..., 1:3], lambda a: a.T, lambda a: a.reshape(3, 8), lambda a: a.ravel(),
    lambda a: a.swapaxes(0, 1), lambda a: np.transpose(a), lambda a: np.expand_dims(a, 1),
    lambda a: np.broadcast_to(a[:1], (5, 6)), lambda a: a[::2].T[1:],
    lambda a: a.T.reshape(-1), lambda a: np.squeeze(a[:1]), lambda a: a[2],
])
def test_views_match_numpy(view):
    a = host()
    d = npcompile.to_device(a)
    v = view(d)
    exp = view(a)
    assert isinstance(v, npcompile.DeviceArray)
    assert v.shape == exp.shape and v.dtype == exp.dtype
    np.testing.assert_array_equal(v.get(), exp)
    assert v.flags.c_contiguous == exp.flags.c_contiguous


def test_views_share_the_buffer_copies_do_not():
    d = npcompile.to_device(host())
    assert np.may_share_memory(d, d[1:]) and np.shares_memory(d[:, :3], d[:, 2:])
    assert np.may_share_memory(d[:, :3], d[:, 3:])  # bounds overlap, as in NumPy
    assert not np.shares_memory(d[:, :3], d[:, 3:])
    assert not np.may_share_memory(d, d.copy())
    assert d.T.reshape(-1).buffer is not d.buffer  # NumPy copies here too


def test_writes_through_views_and_copyto():
    a = host()
    d = npcompile.to_device(a)
    d[1] = 7
    a[1] = 7
    np.copyto(d[2:], np.full((2, 6), -1.0))
    a[2:] = -1
    np.testing.assert_array_equal(d.get(), a)


def test_numpy_consumes_device_arrays_through_the_host():
    a = host()
    d = npcompile.DeviceArray.from_host(a)    # as a kernel's output: no host copy kept
    npcompile.reset()
    assert np.sum(d) == a.sum()
    np.testing.assert_array_equal(d + 1, a + 1)
    assert float(d[1, 2]) == a[1, 2] and d[1, 2].item() == a[1, 2]
    assert "device='cuda'" in repr(d)
    moved = [t for t in npcompile.report()["transfers"] if t["direction"] == "d2h"]
    assert len(moved) >= 3 and all(t["bytes"] > 0 for t in moved)


def test_to_device_records_the_upload():
    npcompile.reset()
    d = npcompile.to_device(np.ones(1000))
    assert npcompile.to_device(d) is d
    up = [t for t in npcompile.report()["transfers"] if t["direction"] == "h2d"]
    assert [t["bytes"] for t in up] == [8000]


class SlowKernels(FakeCuda):
    """Kernels that are still running until someone waits for them."""

    def take_ready_timings(self):
        return []


@pytest.mark.skipif(os.environ.get("NPC_BACKEND") == "reference",
                    reason="the reference path launches no kernels")
def test_calls_do_not_wait_for_their_kernels_and_reports_do(monkeypatch):
    slow = SlowKernels(cuda_runtime._cuda.real)
    monkeypatch.setattr(cuda_runtime, "_cuda", slow)
    f = npcompile.jit(lambda v: np.sin(v) * 2, device="cuda")
    d = npcompile.to_device(host((64, 64)))
    for _ in range(3):
        f(d)
    assert len(slow.launches) == 3
    assert not [k for k in npcompile.SESSION.kernels if k["target"] == "cuda"]  # in flight
    runs = [k for k in npcompile.report()["kernels"] if k["target"] == "cuda"]
    assert len(runs) == 3 and all(k["graph_id"] and k["function"] for k in runs)


class GraphRecorder(FakeCuda):
    """Counts the launch graphs made, and may refuse them as an old driver would."""

    def __init__(self, real, refuse=False):
        super().__init__(real)
        self.graphs, self.refuse = [], refuse

    def LaunchGraph(self, kernels, timed=True):
        if self.refuse:
            raise RuntimeError("cuGraphInstantiate: CUDA_ERROR_NOT_SUPPORTED")
        g = super().LaunchGraph(kernels, timed)
        self.graphs.append(g)
        return g


def normalize(X):
    m = X.mean(axis=0)
    return (X - m) / X.std(axis=0) + X.sum()


needs_kernels = pytest.mark.skipif(os.environ.get("NPC_BACKEND") == "reference",
                                   reason="the reference path launches no kernels")


@needs_kernels
def test_runs_of_kernels_become_one_graph_from_the_second_run(monkeypatch):
    rec = GraphRecorder(cuda_runtime._cuda.real)
    monkeypatch.setattr(cuda_runtime, "_cuda", rec)
    f = npcompile.jit(normalize, device="cuda")
    X = host((64, 32), np.float64)
    d = npcompile.to_device(X)
    first = f(d).get()
    assert not rec.graphs                                # the first run launches directly
    n_direct = len(rec.launches)
    second, third = f(d).get(), f(npcompile.to_device(X + 1)).get()
    assert len(rec.graphs) == 1 and rec.graphs[0].size == n_direct > 1
    assert rec.graphs[0].launches == 2
    # the third call's input is a new buffer: only the kernels reading it were re-pointed
    assert 0 < rec.graphs[0].updates < rec.graphs[0].size + n_direct
    assert first.shape == second.shape == third.shape == X.shape  # fake kernels compute nothing
    runs = [k for k in npcompile.report()["kernels"] if k["target"] == "cuda"]
    assert len(runs) == 3 * n_direct and all(k["graph_id"] for k in runs)


@needs_kernels
def test_a_refused_graph_falls_back_to_direct_launches(monkeypatch):
    rec = GraphRecorder(cuda_runtime._cuda.real, refuse=True)
    monkeypatch.setattr(cuda_runtime, "_cuda", rec)
    f = npcompile.jit(normalize, device="cuda")
    X = host((16, 8), np.float64)
    for _ in range(3):
        f(npcompile.to_device(X))
    assert not rec.graphs and len(rec.launches) > 3
    program = f._plans[next(iter(f._plans))].program
    assert "CUDA_ERROR_NOT_SUPPORTED" in program.graph_refusal


@needs_kernels
def test_graphs_can_be_turned_off(monkeypatch):
    rec = GraphRecorder(cuda_runtime._cuda.real)
    monkeypatch.setattr(cuda_runtime, "_cuda", rec)
    monkeypatch.setattr(cuda_runtime, "GRAPHS", False)
    f = npcompile.jit(normalize, device="cuda")
    for _ in range(3):
        f(npcompile.to_device(host((16, 8), np.float64)))
    assert not rec.graphs


@pytest.mark.parametrize("write", [
    lambda a, v: a.__setitem__((slice(None), 0), 5),
    lambda a, v: a.__setitem__((slice(None, None, 2), slice(1, None)), v[::2, 1:] * 3),
    lambda a, v: a.__setitem__((slice(None, None, -1), 2), np.arange(4)),
    lambda a, v: a.T.__setitem__((slice(1, 3),), v.T[1:3] + 0.5),
    lambda a, v: np.copyto(a[:, ::3], -1.0),
])
def test_writes_into_strided_views_land_where_numpy_puts_them(write):
    exp = host()
    d = npcompile.to_device(exp)
    other = host() * 7
    write(exp, other)
    write(d, npcompile.to_device(other))
    assert np.array_equal(d.get(), exp)


def test_a_strided_view_written_from_an_overlapping_view_of_itself():
    exp = host()
    d = npcompile.to_device(exp)
    exp[:, ::2] = exp[:, 1::2][:, ::-1]
    d[:, ::2] = d[:, 1::2][:, ::-1]
    assert np.array_equal(d.get(), exp)


@needs_kernels
def test_jitted_in_place_update_of_a_strided_device_view():
    def scale_first_column(x):
        x[:, 0] *= 2
        return x.sum()
    exp = host()
    d = npcompile.to_device(exp)
    f = npcompile.jit(scale_first_column, device="cuda")
    f(d)
    scale_first_column(exp)
    # fake kernels compute nothing; what matters is that the write-back is taken, not refused
    assert d.get().shape == exp.shape


@needs_kernels
def test_host_inputs_live_until_their_kernels_are_queued():
    # each kernel of a run uploads its host inputs; the run is launched at its end, so the
    # uploads must outlive the loop over kernels (fake_cuda checks every launched address)
    f = npcompile.jit(normalize, device="cuda")
    X = host((64, 32), np.float64)
    for _ in range(3):
        f(X)
    assert cuda_runtime._cuda.launches


def test_the_numpy_path_on_the_gpu_returns_device_arrays():
    """jit(device="cuda")'s plain-NumPy path (api/path_choice.py) runs on the host and
    hands back what the compiled path would: DeviceArrays, 0-d for NumPy scalars, with
    Python numbers and other objects as they are."""
    def f(a):
        return a * 2, {"s": a.sum(), "n": 3, "name": "x"}, [a[:2] > 0]
    j = npcompile.jit(f, device="cuda")
    a = host((3, 4), np.float64)
    arr, d, (mask,) = j._eager(a)
    assert isinstance(arr, npcompile.DeviceArray) and isinstance(mask, npcompile.DeviceArray)
    np.testing.assert_array_equal(arr.get(), a * 2)
    np.testing.assert_array_equal(mask.get(), a[:2] > 0)
    assert isinstance(d["s"], npcompile.DeviceArray) and d["s"].shape == ()
    assert d["s"].get()[()] == a.sum() and d["n"] == 3 and d["name"] == "x"


def test_other_ndarray_methods_run_on_the_host_copy():
    a = host((3, 4), np.float64)
    d = npcompile.to_device(a)
    assert d.max() == a.max() and d.argmin() == a.argmin()
    np.testing.assert_array_equal(d.mean(axis=0), a.mean(axis=0))
    np.testing.assert_array_equal(d.cumsum(), a.cumsum())
    with pytest.raises(AttributeError):
        d.no_such_thing
    with pytest.raises(AttributeError):
        d._private


def test_a_numpy_path_result_crosses_the_bus_only_when_the_gpu_needs_it():
    def f(a):
        return a * 2
    a = host((3, 4), np.float64)
    npcompile.reset()
    d = npcompile.jit(f, device="cuda")._eager(a)
    assert npcompile.report()["transfers"] == []
    np.testing.assert_array_equal(d.get(), a * 2)          # read back without a transfer
    np.testing.assert_array_equal(d + 1, a * 2 + 1)
    assert npcompile.report()["transfers"] == []
    view = d[1:, ::2]                                     # its buffer is used: uploaded
    up = [t["bytes"] for t in npcompile.report()["transfers"] if t["direction"] == "h2d"]
    assert up == [a.nbytes]
    view[...] = -1                                        # a write lands on the device
    expected = a * 2
    expected[1:, ::2] = -1
    np.testing.assert_array_equal(d.get(), expected)
    held = np.arange(4.0)
    e = npcompile.DeviceArray.on_host(held)
    held[0] = 99.0                                        # a copy: later writes do not show
    assert e.get()[0] == 0.0
    assert npcompile.DeviceArray.on_host(np.float32(2.5)).get().shape == ()


def test_a_result_no_one_else_holds_is_kept_without_a_copy():
    """results_to_device keeps a fresh result as it is, and copies one that the caller,
    a global or a view could still change."""
    from npcompile.backends.device_array import results_to_device
    where = []

    def address(a):
        return a.__array_interface__["data"][0]

    def fresh(x):
        out = x * 2
        where.append(address(out))
        return out, {"s": out.sum()}
    x = host((3, 4), np.float64)
    arr, d = results_to_device(fresh(x))
    assert address(arr._host_copy) == where[-1]           # not copied
    np.testing.assert_array_equal(arr.get(), x * 2)
    assert d["s"].get()[()] == (x * 2).sum() and d["s"].shape == ()
    kept = [x, x[1:], np.arange(3.0)]
    for held in kept:                                      # an argument, a view, a global
        got = results_to_device((held,))[0]
        assert address(got._host_copy) != address(held)
        np.testing.assert_array_equal(got.get(), held)
    before = x.copy()
    got = results_to_device(x)
    x[...] = -1                                           # the caller's later write
    np.testing.assert_array_equal(got.get(), before)

    def primes_like(m):             # np.nonzero's rows: views of one index array
        return np.nonzero(m)[0]
    m = np.arange(50) % 3 == 0
    rows = results_to_device(primes_like(m))
    np.testing.assert_array_equal(rows.get(), np.nonzero(m)[0])
    assert rows._host_copy.base is not None                # kept, not copied

    def two_views(y):               # views sharing one base: the other could write
        b = y * 2
        return b[1:], b[:2]
    first, second = results_to_device(two_views(x))
    assert first._host_copy.base is None and second._host_copy.base is None

    # NumPy scalars: 0-d arrays of their own dtype and value, beside arrays and leaves
    for s in (np.float32(2.5), np.int16(-7), np.complex128(1 - 2j), np.bool_(True)):
        got, n, arr = results_to_device((s, 3, x * 1))
        assert type(got) is npcompile.DeviceArray and got.shape == () and got.dtype == s.dtype
        assert got._host_copy.flags.c_contiguous and got.get()[()] == s
        assert n == 3 and type(arr) is npcompile.DeviceArray
    assert type(results_to_device(np.float64(0.5))) is npcompile.DeviceArray
    assert results_to_device(np.datetime64(1, "D")) == np.datetime64(1, "D")  # not traced: kept


def test_the_jits_numpy_path_keeps_its_fresh_results_without_a_copy():
    """device="cuda"'s NumPy path hands its results to results_to_device without a name
    of its own holding them: one did, and every result was copied (0.86x NumPy)."""
    made = []

    def f(x):
        out = x + 1
        made.append(out.__array_interface__["data"][0])
        return out, x
    jf = npcompile.jit(f, device="cuda")
    x = host((3, 4), np.float64)
    fresh, arg = jf._eager(x)
    assert fresh._host_copy.__array_interface__["data"][0] == made[-1]
    assert arg._host_copy.__array_interface__["data"][0] != x.__array_interface__["data"][0]
    x[...] = -1                                           # the argument was copied
    np.testing.assert_array_equal(arg.get(), np.arange(12.0).reshape(3, 4))


def _downloads():
    return [t for t in npcompile.report()["transfers"] if t["direction"] == "d2h"]


def test_to_device_keeps_a_host_copy_until_the_device_is_written():
    """Reads of a to_device array (get(), NumPy functions, views) copy from the host copy
    of its values, with no download, until something writes the buffer; writes keep
    the copy in step, and the user's own array is never that copy."""
    npcompile.reset()
    a = host((4, 6), np.float64)
    d = npcompile.to_device(a)
    a[0, 0] = 99.0                                        # the caller's array is not it
    view = d[1:, ::2]
    np.testing.assert_array_equal(np.sin(d), np.sin(host((4, 6), np.float64)))
    np.testing.assert_array_equal(view.get(), host((4, 6), np.float64)[1:, ::2])
    assert _downloads() == []
    expected = host((4, 6), np.float64)
    d[2] = -1.0                                           # contiguous write
    view[0] = 7.0                                         # strided write
    d[:, 5] = d[:, 0]                                     # a view of itself, strided
    expected[2] = -1.0
    expected[1, ::2] = 7.0
    expected[:, 5] = expected[:, 0]
    np.testing.assert_array_equal(d.get(), expected)
    assert _downloads() == []
    cuda_runtime._cuda.download(got := np.empty((4, 6)), d.buffer, 0)   # the device's bytes
    np.testing.assert_array_equal(got, expected)
    d[1:] = d[:-1].copy()                                 # device to device: copy dropped
    expected[1:] = expected[:-1].copy()
    np.testing.assert_array_equal(d.get(), expected)
    assert len(_downloads()) >= 1


def test_ufunc_at_writes_into_the_device_array():
    a = host((3, 4), np.float64)
    d = npcompile.to_device(a)
    np.add.at(d, (np.array([0, 0, 2]), np.array([1, 1, 3])), 5.0)
    np.add.at(a, (np.array([0, 0, 2]), np.array([1, 1, 3])), 5.0)
    np.testing.assert_array_equal(d.get(), a)
    view = d[1]
    np.negative.at(view, [0, 0, 1])
    np.negative.at(a[1], [0, 0, 1])
    np.testing.assert_array_equal(d.get(), a)


# the nest is compiled for the host by the CPU backend; a module built without it (the
# GPU machine's CUDA-only build) traces the loop for the fake device, whose kernels only
# record their launches
NEST = pytest.mark.skipif(os.environ.get("NPC_BACKEND") == "reference" or not cpu.AVAILABLE,
                          reason="the loop nest is compiled by the CPU backend")


def _recurrence(x, y):
    s = 0.0
    for i in range(1, len(x)):
        x[i] = x[i - 1] * 0.5 + y[i]
        s += x[i]
    return s


@NEST
def test_a_scalar_loop_nest_on_device_arrays_runs_on_the_host_and_writes_back():
    """A loop over elements of arrays on the GPU runs as one compiled function on the
    host: traced for the GPU it was one graph node per element operation. What it
    writes goes back into the device array; what it only reads is left as it was."""
    rng = np.random.default_rng(0)
    x, y = rng.random(50), rng.random(50)
    ex = x.copy()
    es = _recurrence(ex, y)
    dx, dy = npcompile.to_device(x), npcompile.to_device(y)
    s = npcompile.jit(_recurrence, device="cuda")(dx, dy)
    assert float(s) == es
    assert np.array_equal(dx.get(), ex) and np.array_equal(dy.get(), y)
    (loop,) = npcompile.report()["loops"]
    assert "one compiled function on the host" in loop["summary"]
    assert not npcompile.report()["fallbacks"]


@NEST
def test_a_loop_nest_writing_two_views_of_one_device_array_runs_as_python():
    """Two host copies of one device buffer would not see each other's writes: the nest
    declines, and the loop runs as written (traced for the GPU: fake kernels here)."""
    def shift(a, b):
        for i in range(1, len(a)):
            a[i] = b[i - 1] + 1.0
        return a
    d = npcompile.to_device(np.arange(10.0))
    npcompile.jit(shift, device="cuda")(d[1:], d[:-1])
    (loop,) = [r for r in npcompile.report()["loops"] if r["lineno"]]
    assert "two of its arrays on the GPU share memory" in loop["summary"]


def test_a_ufunc_into_a_device_array_keeps_numpys_casting_and_where():
    """`d *= 0.5` of an integer device array is NumPy's casting error, and out= with
    where= keeps the elements where it is False (the result made apart and copied in
    cast silently and overwrote them)."""
    d = npcompile.to_device(np.arange(6).reshape(2, 3))
    with pytest.raises(TypeError, match="same_kind"):     # NumPy's UFuncTypeError
        d *= 0.5
    np.testing.assert_array_equal(d.get(), np.arange(6).reshape(2, 3))
    f = npcompile.to_device(np.ones(4))
    np.add(f, 1.0, out=f, where=np.array([True, False, True, False]))
    np.testing.assert_array_equal(f.get(), [2.0, 1.0, 2.0, 1.0])


@pytest.mark.parametrize("subs", ["ii->i", "ij->ji", "ij->ij"])
def test_a_view_numpy_makes_of_a_device_array_is_a_view_of_it(subs):
    """np.einsum summing nothing (and any NumPy function returning a view) runs on a
    host copy of the device array; the view it returns is that view of the device
    array, so writing into it writes the array, as in NumPy (it wrote the copy)."""
    a = host((6, 6), np.float64)
    d = npcompile.to_device(a)
    v = np.einsum(subs, d)
    assert isinstance(v, npcompile.DeviceArray)
    v[...] = 7.0
    w = np.einsum(subs, a)
    w[...] = 7.0
    np.testing.assert_array_equal(d.get(), a)
    np.testing.assert_array_equal(np.mean(npcompile.to_device(a), axis=0), a.mean(axis=0))


@pytest.mark.parametrize("write", [
    lambda v: v.view().__setitem__(Ellipsis, 7.0), lambda v: v.T.__setitem__(0, 7.0),
    lambda v: v.view(np.int32).__setitem__((0, 1), 7), lambda v: v.real.__setitem__(1, 7.0),
    lambda v: v.sort(axis=0), lambda v: v.fill(3.0), lambda v: v.put([0, 5], [7.0, 8.0]),
    lambda v: v.partition(2), lambda v: v.swapaxes(0, 1).__setitem__(2, -1.0),
])
def test_ndarray_methods_write_where_numpys_do(write):
    """d.view(), d.T, d.real are views of d, and d.sort() or d.fill() write d, as NumPy's
    methods do on an ndarray (they ran on a host copy, and d kept its values: the GPU
    suite's view tests wrote nothing)."""
    a = np.random.default_rng(1).standard_normal((4, 6)).astype(np.float32)
    d = npcompile.to_device(a.copy())
    write(a)
    write(d)
    np.testing.assert_array_equal(d.get(), a)


def test_an_in_place_resize_raises_instead_of_resizing_a_copy():
    d = npcompile.to_device(host())
    with pytest.raises(ValueError, match="resize"):
        d.resize(30)
    assert d.shape == (4, 6)


def test_round_of_a_0d_device_array_is_pythons_rounding_of_the_scalar():
    d = npcompile.to_device(np.array(2.675))
    assert round(d, 2) == round(np.float64(2.675), 2) and type(round(d)) is int
