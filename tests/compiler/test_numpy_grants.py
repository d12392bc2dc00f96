"""Calls the path choice grants to plain NumPy run from the jit's C base
(compiler/trace_core/JitCall.hpp) without entering Python: the untimed calls between
rechecks, and NumPy for good. What the Python call would check still holds for them:
NumPy's raising floating-point modes, npcompile.reset(), other argument layouts,
keyword arguments, a call from traced code."""
import numpy as np
import pytest

import npcompile
from npcompile.api import jit as jit_module, path_choice
from npcompile.api.replay import choice_key

pytestmark = pytest.mark.skipif(jit_module._CALL_BASE is object,
                                reason="no C core: every call is the Python one")


def ratio(a, b):
    return a / b + 1.0


def numpy_chosen(fn=ratio, *args):
    """fn jitted, and called until plain NumPy is its choice for args (its compiled path
    slowed on purpose, so that only the measurement decides), with a counter of the
    calls that entered Python."""
    import time
    j = npcompile.jit(fn, choose=True)
    real = j._compiled_call

    def slow(a, kw):
        time.sleep(0.005)
        return real(a, kw)
    j._compiled_call = slow
    for _ in range(1 + 2 * path_choice.SAMPLES):
        j(*args)
    assert [c["choice"] for c in npcompile.report()["path_choices"]][-1] == "numpy"
    entered = []
    python_call = j._call

    def counted(*a, **kw):
        entered.append(1)
        return python_call(*a, **kw)
    j._call = counted      # the C base looks `_call` up on the instance
    return j, entered


def test_granted_calls_run_numpy_without_entering_python():
    a, b = np.arange(1.0, 6.0), np.full(5, 2.0)
    j, entered = numpy_chosen(ratio, a, b)
    for _ in range(300):
        got = j(a, b)
        assert type(got) is np.ndarray
        np.testing.assert_array_equal(got, ratio(a, b))
    assert j._granted(choice_key((a, b), {})) is not None
    # the calls that earn a grant, and each recheck's timed samples
    assert len(entered) < 0.15 * 300, len(entered)


def test_grants_keep_the_rechecks_and_their_count():
    """The calls made on a grant are counted at the next call in Python: the recheck
    schedule, and the count of calls, are those of calls that each asked the path
    choice."""
    a, b = np.arange(1.0, 6.0), np.full(5, 2.0)
    j, entered = numpy_chosen(ratio, a, b)
    key = choice_key((a, b), {})
    st = j.chooser._states[key]
    made = st.calls
    compiled = []
    slow = j._compiled_call
    j._compiled_call = lambda a_, kw: compiled.append(1) or slow(a_, kw)
    for _ in range(300):
        j(a, b)
    made += 300
    j._count_lent(npcompile.api.jit.ENGINE.generation)   # what the next call counts first
    assert st.calls == made
    assert compiled, "the compiled path was never rechecked"
    assert st.choice == "numpy"


def test_a_raising_floating_point_mode_is_numpys_under_a_grant():
    a, b = np.arange(1.0, 6.0), np.full(5, 2.0)
    j, entered = numpy_chosen(ratio, a, b)
    j(a, b)
    assert j._granted(choice_key((a, b), {}))
    before = len(entered)
    with np.errstate(divide="raise"):
        with pytest.raises(FloatingPointError):
            j(a, np.zeros(5))
        with pytest.raises(FloatingPointError):
            j(a, b * 0)           # the granted layout: still NumPy's error
    assert len(entered) == before + 2
    assert any('divide="raise"' in f["reason"] for f in npcompile.report()["fallbacks"])


def test_reset_voids_the_grants():
    a, b = np.arange(1.0, 6.0), np.full(5, 2.0)
    j, entered = numpy_chosen(ratio, a, b)
    j(a, b)
    key = choice_key((a, b), {})
    assert j._granted(key)
    npcompile.reset()
    assert j._granted(key) is None
    traces = len(npcompile.report()["traces"])
    np.testing.assert_array_equal(j(a, b), ratio(a, b))   # compiles again
    assert len(npcompile.report()["traces"]) == traces + 1


def test_other_layouts_keywords_and_traced_callers_take_the_python_call():
    a, b = np.arange(1.0, 6.0), np.full(5, 2.0)
    j, entered = numpy_chosen(ratio, a, b)
    j(a, b)
    before = len(entered)
    ia = np.arange(1, 6)
    got = j(ia, b)                                       # another key: not granted
    np.testing.assert_array_equal(got, ratio(ia, b))
    got = j(a, b=b)                                      # keywords: never granted
    np.testing.assert_array_equal(got, ratio(a, b))
    assert len(entered) == before + 2

    @npcompile.jit(choose=False)
    def outer(x, y):
        return j(x, y) * 2.0                             # inlined into outer's trace
    np.testing.assert_array_equal(outer(a, b), ratio(a, b) * 2.0)
    assert not npcompile.report()["fallbacks"]


def test_a_grant_for_good_holds_and_the_count_is_bounded():
    a, b = np.arange(1.0, 6.0), np.full(5, 2.0)
    j, entered = numpy_chosen(ratio, a, b)
    key = choice_key((a, b), {})
    j._grant_numpy(key, -1)
    before = len(entered)
    for _ in range(100):
        j(a, b)
    assert len(entered) == before and j._granted(key) == -1
    for n in range(70):      # past 64 keys the grants are dropped, and earned again
        j._grant_numpy(("k", n), 3)
    assert j._granted(key) is None


def test_a_jitted_function_is_collected():
    """The C base holds the NumPy path (the function) in a cycle through the function's
    globals, which the garbage collector sees."""
    import gc
    import weakref

    def f(a):
        return a + 1.0
    j = npcompile.jit(f)
    f.__globals__  # noqa: B018 (the cycle: j -> eager f -> globals; none here holds j)
    ref = weakref.ref(j)
    j.cycle = j
    del j
    gc.collect()
    assert ref() is None


def scaled(a, s):
    return a * s + 1.0


def test_float_arguments_taken_as_run_time_values_are_granted_per_value():
    """The path choice's key leaves out a run-time float argument's value
    (api/dynamic_args.py); a grant is for the call's own arguments, one at a time: a value
    that changes at every call gets grants it never uses, which neither count as calls
    nor pile up."""
    a = np.arange(1.0, 6.0)
    j, entered = numpy_chosen(scaled, a, 0.5)
    for s in np.linspace(0.1, 0.9, 100):           # a new value at every call
        np.testing.assert_array_equal(j(a, float(s)), scaled(a, float(s)))
    assert len(j._lent) <= 1
    entered.clear()
    for _ in range(300):
        np.testing.assert_array_equal(j(a, 0.25), scaled(a, 0.25))
    assert len(entered) < 0.15 * 300, len(entered)
    assert j._granted(choice_key((a, 0.25), {})) is not None
