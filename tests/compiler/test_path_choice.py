"""jit's choice of the cheapest path: after the compiling call, a few calls are timed
compiled and a few in plain NumPy, and the faster runs from then on. Results are
NumPy's either way; the report says which path was chosen and why."""
import os
import time
import warnings

import numpy as np
import pytest

import npcompile
from npcompile.api import path_choice

# These time the compiled path against a slowed plain-NumPy path; on the reference path
# nothing is replayed and tracing each call costs about as much as the NumPy path.
needs_replay = pytest.mark.skipif(os.environ.get("NPC_BACKEND") == "reference",
                                  reason="the reference path replays nothing")


def tiny(a, b):
    return a * 2.0 + b


def slowed(monkeypatch, j, seconds=0.01):
    """j with its compiled path made slow on purpose: only the measurement decides."""
    real = j._compiled_call

    def slow(args, kwargs):
        time.sleep(seconds)
        return real(args, kwargs)
    monkeypatch.setattr(j, "_compiled_call", slow)
    return j


def test_plain_numpy_chosen_when_it_is_faster(monkeypatch):
    j = slowed(monkeypatch, npcompile.jit(tiny, choose=True))
    a, b = np.arange(5.0), np.ones(5)
    for _ in range(2 + 2 * path_choice.SAMPLES):
        np.testing.assert_array_equal(j(a, b), tiny(a, b))
    choices = npcompile.report()["path_choices"]
    assert [c["choice"] for c in choices] == ["numpy"]
    assert choices[0]["function"] == "tiny" and "faster" in choices[0]["reason"]
    assert choices[0]["numpy_ms"] < choices[0]["compiled_ms"]
    # from now on the body runs eagerly: no trace is recorded
    traces = len(npcompile.report()["traces"])
    t0 = time.perf_counter()
    out = j(a, b)
    assert time.perf_counter() - t0 < 0.01
    assert type(out) is np.ndarray and out.dtype == np.float64
    assert len(npcompile.report()["traces"]) == traces


@needs_replay
def test_compiled_kept_when_it_is_faster(monkeypatch):
    calls = []

    def heavy(a):
        calls.append(1)
        return np.sqrt(np.abs(np.sin(a) * 3.0 + 1.0)).sum()
    j = npcompile.jit(heavy, choose=True)
    real_fn = j._eager

    def slow_eager(*args, **kwargs):  # what the NumPy path runs, made slow
        time.sleep(0.01)
        return real_fn(*args, **kwargs)
    a = np.linspace(0, 1, 1000)
    for _ in range(3):
        j(a)
    monkeypatch.setattr(j, "_eager", slow_eager)
    for _ in range(2 * path_choice.SAMPLES):
        j(a)
    choices = npcompile.report()["path_choices"]
    assert [c["choice"] for c in choices] == ["compiled"]
    assert npcompile.report()["fallbacks"] == []


def test_each_argument_layout_chooses_on_its_own():
    j = npcompile.jit(tiny, choose=True)
    for n in (4, 5):
        for _ in range(2 + 2 * path_choice.SAMPLES):
            j(np.ones(n), np.ones(n))
    assert len(npcompile.report()["path_choices"]) == 2


def test_no_choice_for_fullgraph_or_when_turned_off(monkeypatch):
    assert npcompile.jit(tiny, fullgraph=True, choose=True).chooser is None
    assert npcompile.jit(tiny, device="cuda", choose=True).chooser is not None
    monkeypatch.setenv("NPC_CHOOSE_PATH", "0")
    assert npcompile.jit(tiny).chooser is None
    monkeypatch.setenv("NPC_CHOOSE_PATH", "1")
    assert npcompile.jit(tiny).chooser is not None


def test_errors_are_numpys_on_either_path():
    def bad(a, b):
        return a + b
    j = npcompile.jit(bad, choose=True)
    for _ in range(2 + 2 * path_choice.SAMPLES + 1):
        with pytest.raises(ValueError):
            j(np.ones(3), np.ones(4))


@needs_replay
def test_a_choice_made_in_noise_is_made_again(monkeypatch):
    """The compiled path was slow while the choice was made (a busy neighbour); once it is
    fast again, the rechecks every RECHECK calls bring it back."""
    j = npcompile.jit(tiny, choose=True)
    real = j._compiled_call
    slow = {"on": True}

    def maybe_slow(args, kwargs):
        if slow["on"]:
            time.sleep(0.01)
        return real(args, kwargs)
    monkeypatch.setattr(j, "_compiled_call", maybe_slow)
    real_fn = j._eager

    def slow_numpy(*args, **kwargs):    # NumPy made slower than the fast compiled path
        time.sleep(0.002)
        return real_fn(*args, **kwargs)
    monkeypatch.setattr(j, "_eager", slow_numpy)
    a, b = np.arange(5.0), np.ones(5)
    for _ in range(1 + 2 * path_choice.SAMPLES):
        j(a, b)
    assert [c["choice"] for c in npcompile.report()["path_choices"]] == ["numpy"]
    slow["on"] = False
    for _ in range(path_choice.SAMPLES * path_choice.RECHECK + 1):
        np.testing.assert_array_equal(j(a, b), tiny(a, b))
    assert [c["choice"] for c in npcompile.report()["path_choices"]] == ["numpy", "compiled"]


def test_reset_begins_the_measurements_again():
    """npcompile.reset() forgets the compiled programs the choice was timed on: the next
    call compiles again, and is not taken for a warm time."""
    j = npcompile.jit(tiny, choose=True)
    a, b = np.arange(5.0), np.ones(5)
    for _ in range(1 + 2 * path_choice.SAMPLES):
        j(a, b)
    assert len(npcompile.report()["path_choices"]) == 1
    npcompile.reset()
    traces = len(npcompile.report()["traces"])
    j(a, b)                      # compiles again: the compiled path, whatever was chosen
    assert len(npcompile.report()["traces"]) == traces + 1
    assert npcompile.report()["compiles"]


def test_rechecks_back_off_while_the_choice_stays_clear():
    """Each recheck that confirms a clear choice doubles the wait before the next (up to
    RECHECK_MAX calls), so a compiled path far slower than NumPy stops costing a share
    of every call; a close call keeps rechecking every RECHECK calls."""
    from npcompile.records import Session

    def rechecks(compiled_s, numpy_s, calls):
        chooser = path_choice.PathChooser(Session(), "f")
        other = []
        for i in range(calls):
            path = chooser.next_path("k")
            if path in path_choice.UNTIMED_OF:    # the choice between rechecks: untimed
                continue
            st = chooser._states["k"]
            if st.choice is not None and path != st.choice:
                other.append(i)
            chooser.record("k", path, compiled_s if path == "compiled" else numpy_s)
        return other

    clear = rechecks(0.003, 0.001, 4000)
    gaps = [b - a for a, b in zip(clear, clear[1:])]
    assert gaps == sorted(gaps) and gaps[0] == 2 * path_choice.FIRST_RECHECK
    assert max(gaps) == path_choice.RECHECK_MAX
    close = rechecks(0.00105, 0.001, 1000)
    gaps = [b - a for a, b in zip(close, close[1:])]
    # the first rechecks come soon (a choice made in noise), then every RECHECK calls
    assert gaps == sorted(gaps) and gaps[0] == 2 * path_choice.FIRST_RECHECK
    assert set(gaps[-5:]) == {path_choice.RECHECK}


def test_samples_are_taken_in_turns():
    """A busy spell of a few calls falls on both sides, not on one side's samples."""
    from npcompile.records import Session
    chooser = path_choice.PathChooser(Session(), "f")
    paths = []
    for _ in range(1 + 2 * path_choice.SAMPLES):
        paths.append(chooser.next_path("k"))
        chooser.record("k", paths[-1], 0.001)
    assert paths[:3] == ["compiled", "compiled", "numpy"]
    assert paths.count("numpy") == path_choice.SAMPLES
    assert chooser._states["k"].choice is not None


def _smooth(x, weights):
    y = x.copy()
    for i in range(1, len(x)):      # reads i: unrolled past the op budget
        y[i] = weights[0] * y[i - 1] + weights[1] * x[i]
    return y


def test_arguments_without_a_replay_key_still_get_a_path():
    """A plain list argument has no replay key (api/replay.arg_key); the path choice
    keys it by type and size instead, so a call past the op budget runs as plain NumPy
    from then on, where every call was traced to the budget again (150x NumPy)."""
    x = np.random.default_rng(0).standard_normal(3000)
    j = npcompile.jit(_smooth, choose=True)
    np.testing.assert_allclose(j(x, [0.9, 0.1]), _smooth(x, [0.9, 0.1]))
    assert [c.get("budget") for c in npcompile.report()["path_choices"]] == [True]
    traces = len(npcompile.report()["traces"])
    for w in ([0.9, 0.1], [0.5, 0.5]):
        np.testing.assert_allclose(j(x, w), _smooth(x, w))
    assert len(npcompile.report()["traces"]) == traces     # no trace: NumPy, settled


class _Session:
    def __init__(self):
        self.records = []

    def add(self, kind, rec):
        self.records.append(rec)


def test_one_quick_call_does_not_decide():
    # a side whose times spread (one quick call among slower ones) is judged by its
    # middle time, not its best: householder_qr kept compiled on one quick call
    session = _Session()
    chooser = path_choice.PathChooser(session, "f")
    times = {"compiled": [1.0, 5.0, 5.0], "numpy": [3.0, 3.0, 3.0]}
    chooser.record("k", "compiled", 9.0)          # the compiling call: not timed
    while True:
        path = chooser.next_path("k")
        if not times[path]:
            break
        chooser.record("k", path, times[path].pop(0))
        if session.records:
            break
    assert session.records and session.records[-1]["choice"] == "numpy", session.records
    assert session.records[-1]["compiled_ms"] == 5000.0


def _choose(compiled, numpy):
    session = _Session()
    chooser = path_choice.PathChooser(session, "f")
    times = {"compiled": list(compiled), "numpy": list(numpy)}
    chooser.record("k", "compiled", 9.0)          # the compiling call: not timed
    while not session.records:
        path = chooser.next_path("k")
        if not times[path]:
            break
        chooser.record("k", path, times[path].pop(0))
    return session.records[-1]["choice"]


def test_a_near_tie_is_plain_numpy():
    # a compiled lead inside the margin is noise: NumPy, which cannot be slower than itself
    assert _choose([0.98] * 3, [1.0] * 3) == "numpy"
    assert _choose([0.9] * 3, [1.0] * 3) == "compiled"


@pytest.mark.skipif(npcompile.cuda_available()[0], reason="about a machine without a GPU")
def test_cuda_without_a_gpu_chooses_a_path_and_returns_numpys_types(monkeypatch):
    # device="cuda" runs on the CPU here, as its warning says; timing the compiled side
    # waited on the GPU and raised the driver's error out of the user's call
    j = slowed(monkeypatch, npcompile.jit(tiny, device="cuda", choose=True), 0.005)
    a, b = np.arange(5.0), np.ones(5)
    with warnings.catch_warnings():     # "runs on the CPU here", said once per process
        warnings.simplefilter("ignore", RuntimeWarning)
        for _ in range(2 + 2 * path_choice.SAMPLES):
            got = j(a, b)
            assert type(got) is np.ndarray     # either path: no DeviceArray without a GPU
            np.testing.assert_array_equal(got, tiny(a, b))
    assert [c["choice"] for c in npcompile.report()["path_choices"]] == ["numpy"]


def test_calls_between_rechecks_are_not_timed():
    """After the choice, the chosen path runs untimed (UNTIMED) but for the SAMPLES calls
    before each recheck, whose times the recheck compares: timing and recording cost
    about a quarter of the jit's own time per call on the NumPy path."""
    from npcompile.records import Session
    chooser = path_choice.PathChooser(Session(), "f")
    paths = []
    for _ in range(3000):
        path = chooser.next_path("k")
        paths.append(path)
        if path not in path_choice.UNTIMED_OF:
            chooser.record("k", path, 0.003 if path == "compiled" else 0.001)
    assert chooser._states["k"].choice == "numpy"
    untimed = paths.count(path_choice.UNTIMED["numpy"])
    assert untimed > 0.9 * len(paths)
    rechecks = [i for i, p in enumerate(paths) if p == "compiled" and i > 10]
    assert rechecks
    for i in rechecks:      # the calls right before a recheck were timed, on NumPy
        assert paths[i - path_choice.SAMPLES:i] == ["numpy"] * path_choice.SAMPLES
    assert chooser._states["k"].calls == len(paths)


def test_a_jitted_call_on_an_untimed_path_gives_numpys_values():
    j = npcompile.jit(lambda a, b: np.sqrt(a) + b.sum(), choose=True)
    a, b = np.arange(5.0), np.ones(3)
    for _ in range(200):
        got = j(a, b)
    np.testing.assert_array_equal(got, np.sqrt(a) + b.sum())
    (rec,) = [r for r in npcompile.report()["path_choices"]][-1:]
    assert rec["choice"] in ("numpy", "compiled")
