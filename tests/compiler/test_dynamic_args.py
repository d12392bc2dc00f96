"""Python float arguments as run-time values (api/dynamic_args.py): a function called with
new values of its float arguments alone is traced once more with them as inputs of the
graph, and later calls replay that plan whatever the values, against eager NumPy: values,
dtypes and scalar types. Where a NumPy scalar would not do what the Python float does
(a branch on it, float32 promotion, a float handed back), calls stay keyed by value."""
import os

import numpy as np
import pytest

import npcompile
from npcompile.backends import cpu
from conftest import same

# plans are made from compiled graphs: the CPU backend's (test_cuda_device.py has the GPU's)
pytestmark = pytest.mark.skipif(not cpu.AVAILABLE or os.environ.get("NPC_BACKEND") == "reference"
                                or os.environ.get("NPC_TEST_DEVICE") == "cuda",
                                reason="replay needs the compiled CPU backend")


def scaled(a, s, t):
    return np.sin(a) * s + np.cos(a * t) - s * t


def affine(a, s, t):
    return a * s + (a - t) * t


def branches(a, s):
    if s > 0.5:
        return a * s
    return a - s


def hands_back(a, s):
    return a * s, s * 2.0


def by_type(a, s):
    if isinstance(s, float):     # a NumPy scalar would take the other branch
        return a * s
    return a + s


def float_method(a, s):
    a *= 2.0                     # in place: must land once per call
    if s.is_integer():           # a float's method, which a NumPy scalar lacks
        return a + s
    return a - s


def compiles():
    return len(npcompile.report()["compiles"])


def replayed():
    return sum(1 for t in npcompile.report()["traces"] if t.get("replay"))


def test_new_float_values_replay_one_program():
    f = npcompile.jit(scaled, choose=False)
    a = np.linspace(0.0, 3.0, 50)
    for s, t in [(0.5, 1.0), (1.5, 2.0), (-3.25, 0.0), (7.0, -1e-3), (0.0, 2.5)]:
        same(f(a, s, t), scaled(a, s, t))
    first = compiles()
    before = replayed()
    for s, t in [(2.0, 3.0), (11.5, -4.0), (-0.0, 1e300)]:
        same(f(a, s, t), scaled(a, s, t))
    assert compiles() == first                 # no compile for a new value
    assert replayed() == before + 3            # and no trace either
    assert first <= 3                          # the first value's graph, the run-time one


@pytest.mark.parametrize("fn, values", [
    (branches, [0.25, 0.75, 0.6, 0.1]),          # Python control flow on the float
    (hands_back, [0.5, 1.5, 2.5]),               # a float made from it handed back
])
def test_floats_a_numpy_scalar_would_change_stay_by_value(fn, values):
    f = npcompile.jit(fn, choose=False)
    a = np.arange(6.0)
    for s in values:
        got, exp = f(a, s), fn(a, s)
        same(got, exp)
        if isinstance(exp, tuple):
            assert type(got[1]) is type(exp[1]) is float


def test_float32_arrays_keep_numpys_promotion():
    f = npcompile.jit(affine, choose=False)
    a = np.linspace(0.0, 3.0, 50, dtype=np.float32)
    for s, t in [(0.5, 1.0), (1.5, 2.0), (2.5, 3.0)]:
        got = f(a, s, t)
        same(got, affine(a, s, t))
        assert got.dtype == np.float32


def test_the_path_choice_sees_one_key_for_every_value():
    f = npcompile.jit(scaled, choose=True)
    a = np.linspace(0.0, 3.0, 2000)
    for k in range(30):
        same(f(a, 0.1 * k, 1.0 + k), scaled(a, 0.1 * k, 1.0 + k))
    choices = npcompile.report()["path_choices"]
    assert 1 <= len(choices) <= 2, choices        # chosen for all values, not per value


def test_a_function_that_tells_floats_apart_keeps_them_by_value():
    f = npcompile.jit(by_type, choose=False)
    a = np.arange(5.0)
    for s in (0.5, 1.5, 2.5):
        same(f(a, s), by_type(a, s))


def test_a_float_method_runs_with_the_callers_floats_and_writes_once():
    f = npcompile.jit(float_method, choose=False)
    for s in (0.5, 1.5, 2.0, 3.25):
        got_a, exp_a = np.arange(5.0), np.arange(5.0)
        same(f(got_a, s), float_method(exp_a, s))
        same(got_a, exp_a)
