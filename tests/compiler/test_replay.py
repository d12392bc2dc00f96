"""Replayed calls (api/replay.py): a call whose arguments match an earlier call runs its
compiled program without the Python body, only when the body could not have done
anything else. Every test compares with eager NumPy, call after call."""
import os
import sys
import time
import warnings
import weakref

import numpy as np
import pytest

import npcompile
from npcompile.backends import cpu
from npcompile.records import SESSION

# Plans are made from compiled graphs only; the GPU machine builds without the CPU
# backend, and test_cuda_device.py covers replay on the device there.
pytestmark = pytest.mark.skipif(not cpu.AVAILABLE or os.environ.get(
    "NPC_BACKEND") == "reference", reason="replay needs the compiled CPU backend")

ALPHA = 2.0
G = np.arange(4.0)
LOG = []


def replays():
    return sum(1 for t in SESSION.traces if t.get("replay"))


def jit(fn, **kw):
    return npcompile.jit(fn, replay=True, **kw)


def test_pure_function_replays_with_numpy_results():
    def f(x, y):
        return np.sqrt(np.abs(np.sin(x) * y + 1.0)).sum(axis=0)
    j = jit(f)
    rng = np.random.default_rng(0)
    for i in range(4):
        x, y = rng.standard_normal((2, 50, 3))
        got = j(x, y)
        np.testing.assert_allclose(got, f(x, y), rtol=1e-13)
    assert replays() == 3
    assert not j.replay_refusals


def test_global_scalar_is_guarded():
    global ALPHA

    def f(x):
        return x * ALPHA
    j = jit(f)
    x = np.ones(5)
    assert j(x)[0] == 2.0 and j(x)[0] == 2.0
    assert replays() == 1
    try:
        ALPHA = 3.0
        assert j(x)[0] == 3.0   # the guard failed: traced again, a new plan
        assert j(x)[0] == 3.0
    finally:
        ALPHA = 2.0
    assert j(x)[0] == 2.0


def test_global_array_refuses_replay_and_sees_its_updates():
    def f(x):
        return x + G
    j = jit(f)
    x = np.zeros(4)
    assert np.array_equal(j(x), G)
    G[0] = 100.0
    try:
        assert j(x)[0] == 100.0
    finally:
        G[0] = 0.0
    assert replays() == 0
    (why,) = j.replay_refusals.values()
    assert "global G" in why and "ndarray" in why


def test_print_runs_on_every_call(capsys):
    def f(x):
        print("called")
        return x * 2
    j = jit(f)
    x = np.ones(3)
    for _ in range(3):
        j(x)
    assert capsys.readouterr().out.count("called") == 3
    assert "print" in next(iter(j.replay_refusals.values()))


def test_appending_to_a_global_list_happens_every_call():
    def f(x):
        LOG.append(1)
        return x + 1
    LOG.clear()
    j = jit(f)
    for _ in range(3):
        j(np.ones(2))
    assert len(LOG) == 3


def test_nonlocal_counter_counts_every_call():
    count = 0

    def f(x):
        nonlocal count
        count += 1
        return x - 1
    j = jit(f)
    for _ in range(3):
        j(np.ones(2))
    assert count == 3
    assert "count" in next(iter(j.replay_refusals.values()))


def test_attribute_store_is_not_skipped():
    class Box:
        n = 0
    box = Box()

    def f(x, b):
        b.n += 1
        return x
    j = jit(f)
    for _ in range(3):
        j(np.ones(2), box)
    assert box.n == 3


def test_in_place_update_of_an_argument_lands_on_every_call():
    def f(x, v):
        x += 0.5 * v
        return x
    j = jit(f)
    x, v = np.zeros(6), np.arange(6.0)
    for _ in range(3):
        r = j(x, v)
        assert r is x
    assert replays() == 2
    np.testing.assert_array_equal(x, 1.5 * np.arange(6.0))


def test_aliased_arguments_with_writes_are_traced():
    def f(x, y):
        x += y
        return x
    j = jit(f)
    a, b = np.ones(4), np.ones(4)
    j(a, b)
    j(a, b)
    assert replays() == 1
    c = np.ones(4)
    exp = np.ones(4)
    exp += exp
    np.testing.assert_array_equal(j(c, c), exp)   # same layout key, but aliased
    np.testing.assert_array_equal(c, exp)


def test_scalar_arguments_and_signed_zero_are_part_of_the_key():
    def f(x, s):
        return x / s
    j = jit(f)
    x = np.ones(3)
    with np.errstate(divide="ignore"):
        for s in (2.0, 2.0, 4.0, 0.0, -0.0, -0.0):
            np.testing.assert_array_equal(j(x, s), x / s)


def test_shapes_and_dtypes_make_new_plans():
    def f(x):
        return (x * 3).sum()
    j = jit(f)
    for shape in [(3,), (3,), (5,), (5,), (3,)]:
        for dt in (np.float64, np.float32, np.int8):
            x = np.arange(np.prod(shape)).reshape(shape).astype(dt)
            got, exp = j(x), f(x)
            assert type(got) is type(exp) and got.dtype == exp.dtype and got == exp


def test_random_numbers_are_fresh_each_call_and_a_replay_draws_them_again():
    def f(x):
        return x + np.random.rand(3)
    j = jit(f)
    x = np.zeros(3)
    np.random.seed(3)
    want = [f(x) for _ in range(4)]
    np.random.seed(3)
    got = [j(x) for _ in range(4)]
    for g, w in zip(got, want):
        assert np.array_equal(g, w)
    assert not np.array_equal(got[0], got[1])
    assert replays() >= 1


def test_time_and_library_calls_refuse_replay():
    def f(x):
        return x * time.time()
    j = jit(f)
    j(np.ones(2))
    assert "time" in next(iter(j.replay_refusals.values()))


class _Thing:
    pass


def _drops(things):
    things.pop()    # the last reference: its weak callbacks run here, under the watch
    return 1


def test_weak_callbacks_are_not_calls_the_function_made():
    # the collector runs a finalizer or a weak container's removal from whatever frame
    # is running; taken for the user's call into library code, it refused replay at
    # random (a jitted function freed while a loop body was traced)
    from npcompile.api.purity import Watch
    things, box, seen = [_Thing(), _Thing()], weakref.WeakValueDictionary(), weakref.WeakSet()
    weakref.finalize(things[0], int)
    box[0] = seen_thing = things[1]
    seen.add(seen_thing)
    del seen_thing
    with Watch(_drops, []) as w:
        _drops(things)
        _drops(things)
    assert not box and not seen
    assert w.refusal is None and w.effect is None


def test_returned_structures_are_rebuilt():
    def f(x, y):
        s = x + y
        return {"sum": s, "first": s[0], "view": x[::-1], "n": x.shape[0], "pair": [s, 1]}
    j = jit(f)
    x, y = np.arange(4.0), np.ones(4)
    for _ in range(3):
        got, exp = j(x, y), f(x, y)
        assert got.keys() == exp.keys()
        np.testing.assert_array_equal(got["sum"], exp["sum"])
        assert type(got["first"]) is type(exp["first"]) and got["first"] == exp["first"]
        assert np.shares_memory(got["view"], x)
        assert got["n"] == 4 and got["pair"][1] == 1 and type(got["pair"]) is list
    assert replays() == 2


def test_reset_expires_plans():
    def f(x):
        return x * 2
    j = jit(f)
    x = np.ones(2)
    j(x)
    j(x)
    npcompile.reset()
    j(x)
    assert replays() == 0   # reset cleared the records, and the call after it traced


def test_replay_off_by_option_and_environment(monkeypatch):
    def f(x):
        return x * 2
    x = np.ones(2)
    j = npcompile.jit(f, replay=False)
    j(x)
    j(x)
    assert replays() == 0
    monkeypatch.setenv("NPC_REPLAY", "0")
    j = npcompile.jit(f)
    j(x)
    j(x)
    assert replays() == 0


def test_values_numpy_must_handle_fall_back_on_replay():
    def f(x):
        return (x * 1e30).astype(np.int32)
    j = jit(f)
    ok = np.ones(3)
    bad = np.array([1.0, np.nan, 3.0])
    j(ok)
    with np.errstate(invalid="ignore"), pytest.warns(RuntimeWarning) if False else _nothing():
        got = j(bad)    # same key as ok: the replay's kernel flags it, the call is traced
    with np.errstate(invalid="ignore"):
        exp = f(bad)
    np.testing.assert_array_equal(got, exp)


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


def helper_reading_log(x):
    return x + len(LOG)


def test_helpers_are_checked_too():
    def f(x):
        return helper_reading_log(x)
    j = jit(f)
    LOG.clear()
    x = np.zeros(2)
    assert j(x)[0] == 0
    LOG.append(1)
    assert j(x)[0] == 1
    assert "LOG" in next(iter(j.replay_refusals.values()))


def test_profiler_active_means_no_plan():
    def f(x):
        return x + 1
    j = jit(f)
    sys.setprofile(lambda *a: None)
    try:
        j(np.ones(2))
    finally:
        sys.setprofile(None)
    assert not j._plans and not j.replay_refusals  # no verdict: the next call may plan
    j(np.ones(2))
    assert j._plans


def test_replayed_calls_report_kernel_timings():
    def f(x):
        return np.exp(x) + 1
    j = jit(f)
    x = np.ones(1000)
    for _ in range(3):
        j(x)
    kernels = [k for k in SESSION.kernels if k["function"].endswith("f")]
    assert len(kernels) >= 3 and all(k["wall_ms"] >= 0 for k in kernels)


def test_explain_says_whether_calls_replay():
    def pure(x):
        return x * 2

    def noisy(x):
        print("hi")
        return x * 2
    assert repr(npcompile.explain(pure)(np.ones(2))).endswith(
        "replay: on: later calls with the same argument layout run the compiled program "
        "without tracing")
    assert "replay: off for calls like this one: calls print()" in \
        repr(npcompile.explain(noisy)(np.ones(2)))


class Config:
    scale = 2.0


def test_class_attributes_are_not_trusted():
    def f(x):
        return x * Config.scale
    j = jit(f)
    x = np.ones(2)
    assert j(x)[0] == 2.0
    Config.scale = 5.0
    try:
        assert j(x)[0] == 5.0
    finally:
        Config.scale = 2.0
    assert "class Config" in next(iter(j.replay_refusals.values()))


def test_arrays_inside_tuples_are_not_keyed_by_layout_alone():
    def f(x, pair):
        return x * 2 if pair[0][0] > 0 else x * 3
    j = jit(f)
    x = np.ones(2)
    assert j(x, (np.array([1.0]), 0))[0] == 2.0
    assert j(x, (np.array([-1.0]), 0))[0] == 3.0


def test_a_new_code_object_is_traced():
    def f(x):
        return x * 2
    j = jit(f)
    x = np.ones(2)
    j(x)
    j(x)
    f.__code__ = (lambda x: x * 7).__code__
    assert j(x)[0] == 7.0


def test_numpy_scalar_arguments_keep_their_sign():
    def f(x, s):
        return x / s
    j = jit(f)
    x = np.ones(2)
    with np.errstate(divide="ignore"):
        assert j(x, np.float64(0.0))[0] == np.inf
        assert j(x, np.float64(-0.0))[0] == -np.inf


def test_the_report_counts_replayed_calls():
    prof = pytest.importorskip("npcompile._native").profiler
    f = jit(lambda x: np.sin(x) + 1)
    for _ in range(5):
        f(np.ones(10))
    summary = prof.report()["summary"]
    assert summary["traces"] == 5 and summary["replays"] == 4
    assert "4 calls replayed without tracing" in npcompile.mime_bundle(last=False)["text/plain"]


def test_explain_with_arguments_replay_cannot_key():
    def f(x, items):
        return x * len(items)
    e = npcompile.explain(f)(np.ones(2), [1, 2])
    np.testing.assert_array_equal(e.result, [2.0, 2.0])
    assert "replay: off for calls like this one: an argument is neither" in repr(e)


def _transition(x, dt):
    F = np.array([[1.0, dt], [0.0, 1.0]])    # a literal matrix the body makes
    return x @ F.T + np.triu(np.ones((2, 2))) @ x[0]


def test_arrays_the_body_makes_from_python_values_are_plan_constants():
    """np.array of a literal list, and the masks of np.triu/np.diag, are the same for
    every call with the same key: the plan keeps them (a Kalman filter was traced at
    every call, 30x slower than NumPy, "it reads an array that is not one of its
    arguments"). A new dt is a new key, and a new constant."""
    j = jit(_transition)
    x = np.random.default_rng(0).standard_normal((5, 2))
    for dt in (0.1, 0.1, 0.1, 0.5, 0.5):
        np.testing.assert_allclose(j(x, dt), _transition(x, dt), rtol=1e-13)
    assert not j.replay_refusals
    assert replays() == 3
    d = jit(lambda v: np.diag(v, 1) + np.tril(np.outer(v, v)).sum())
    for k in range(3):
        v = np.arange(4.0) + k
        np.testing.assert_allclose(d(v), np.diag(v, 1) + np.tril(np.outer(v, v)).sum())
    assert not d.replay_refusals


def test_copies_of_mutable_arrays_are_not_plan_constants():
    """np.array(G) of a global, a closure's or a default's array copies what may change
    between calls: such calls are not replayed, and see the change."""
    def from_global(x):
        return x * np.array(G) + 1.0

    def make():
        C = np.arange(4.0)
        return (lambda x: x * np.array(C) + 1.0), C

    def from_default(x, w=np.arange(4.0)):
        return x * np.array(w) + 1.0
    from_closure, C = make()
    x = np.ones(4)
    for fn, changing in ((from_global, G), (from_closure, C),
                         (from_default, from_default.__defaults__[0])):
        j = jit(fn)
        for _ in range(3):
            j(x)
        changing[0] += 10
        np.testing.assert_array_equal(j(x), fn(x))
        assert j.replay_refusals
    G[0] -= 10


def test_the_purity_watch_is_off_while_a_graph_compiles_and_runs(monkeypatch):
    """The watch's sys.setprofile hook sees the user's code, not the compiler's: set
    aside in Engine.run (profile_hook.py), it had doubled first calls that compile a
    graph per loop iteration. It is set aside and back in Engine.run's own frame, so
    that its count of calls and returns (whose code runs) stays balanced; a pure call
    still replays."""
    from npcompile.exec import engine
    watched, inside = [], []
    is_watch, run = engine.is_watch, engine.ENGINE._run

    def spy_is_watch(hook):
        watched.append(is_watch(hook))
        return watched[-1]

    def spy_run(*args):
        inside.append(sys.getprofile())
        return run(*args)

    monkeypatch.setattr(engine, "is_watch", spy_is_watch)
    monkeypatch.setattr(engine.ENGINE, "_run", spy_run)

    def broken(a):
        b = np.sin(a) * 2.0
        n = int(np.argmax(b))           # a graph runs here, mid-call, watched
        return b[n:] + 1.0

    def pure(a):
        return np.sin(a) * 2.0 + 1.0

    a = np.arange(6.0)
    for fn in (broken, pure):
        f = jit(fn, choose=False)
        for _ in range(4):
            np.testing.assert_allclose(f(a), fn(a))
    assert True in watched, "no graph ran while the watch was on"
    assert inside and all(h is None for h in inside), inside
    assert replays() >= 1, f.replay_refusals


def test_a_call_with_an_errstate_scope_replays():
    """`with np.errstate(...)` sets NumPy's error handling and puts it back: the call has
    no effect on it, and it replays (Otsu's threshold divides by zero on purpose). The
    settings are the caller's after every call."""
    def f(p):
        omega = np.cumsum(p)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = (omega * 2.0 - 1.0) ** 2 / (omega * (1.0 - omega))
        return np.nan_to_num(ratio).max()
    j = jit(f)
    p = np.zeros(8)
    p[2:6] = 0.25
    before = np.geterr()
    for _ in range(4):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expect = f(p)
        assert j(p) == expect
        assert np.geterr() == before
    assert replays() == 3
    assert not j.replay_refusals


def test_a_view_of_an_argument_read_before_a_write_through_it():
    """`x = A[:, 0]`, `if x.any():` (a flush: x settles into a view of this call's A),
    then `x += 1`: the view is this call's memory, not a constant of a plan (a replay
    read the first call's column and added 1 to it again: wrong numbers)."""
    def f(A):
        s = 0.0
        x = A[:, 0]
        if x.any():
            s += 1.0
        x += 1.0
        return A, s
    j = jit(f)
    for i in range(4):
        A = np.array([[1.0, 0.3], [0.0, -0.3]]) * (i + 1)
        B = A.copy()
        got, s = j(A)
        expect, t = f(B)
        np.testing.assert_array_equal(got, expect)
        np.testing.assert_array_equal(A, B)
        assert s == t


def _helper_sweeps(x, n):
    y = x.copy()
    for _ in range(n):
        y = y * 0.5 + 1.0
    return y


def _calls_a_helper_with_a_loop(x):
    return _helper_sweeps(x, 12).sum() + x


def test_a_helper_rewritten_for_its_loops_does_not_stop_replay():
    """A module-level helper holding a loop is called through its loop rewrite
    (api/loop_helpers.py), a closure over npcompile's loop runners: the replay watch
    took it for a closure of the user's and refused every plan of the caller."""
    f = npcompile.jit(_calls_a_helper_with_a_loop, choose=False)
    for k in range(4):
        x = np.arange(50.0) + k
        got = f(x)
        np.testing.assert_array_equal(got, _calls_a_helper_with_a_loop(x))
    assert not f.replay_refusals, f.replay_refusals
    assert f._plans


def test_the_c_argument_key_is_pythons():
    """Every jitted call keys its arguments; the tracer's C core does it for positional
    arguments (trace_core/ArgKey.cpp) and must give Python's key exactly, or plans and
    path choices would split or, worse, be shared by calls that differ."""
    from npcompile.api import replay
    if replay._native_key is None:
        pytest.skip("built without the tracer's C core")
    a = np.arange(6.0).reshape(2, 3)
    cases = [
        (a,), (a.T,), (a[:, ::2],), (a.astype(np.float32), 3), (np.arange(4, dtype=">f8"),),
        (np.arange(3, dtype=np.int64), np.arange(3, dtype=np.longlong)),
        (np.array(["x"]),), (np.zeros(2, np.float16),), (np.zeros(2, np.complex64),),
        (1.5,), (0.0,), (-0.0,), (float("nan"),), (float("inf"),), (np.float64(2.0),),
        (np.float32(-0.0),), (3,), (True,), (None,), (2 ** 70,), ("s",), ((1, 2.0),),
        ((1, a),), ([1, 2],), (np.int8(4),), (np.random.default_rng(0),), (np.float64,),
        (np.dtype("f4"),), (len,), (), (a, 0.0, 7, None, False),
    ]
    for args in cases:
        assert replay._native_key(args) == replay.python_arg_key(args, None)[0], args
    # -0.0 and 0.0 differ as keys; NaN has none, so the call is traced
    assert replay.arg_key((0.0,), None)[0] != replay.arg_key((-0.0,), None)[0]
    assert replay.arg_key((a, float("nan")), None) == (None, None)
