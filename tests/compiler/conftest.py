"""Differential testing against eager NumPy: value, dtype, shape and type must match,
and so must every input array the program mutates."""
import copy
import os
import warnings

import numpy as np
import pytest

import npcompile

# The suite checks the compiled path call after call: jit's choice of plain NumPy where
# that is faster (api/path_choice.py) is off here, and tested on its own (test_path_choice).
os.environ.setdefault("NPC_CHOOSE_PATH", "0")

# NPC_TEST_DEVICE=cuda runs the whole differential suite on the GPU (the GPU machine).
DEVICE = os.environ.get("NPC_TEST_DEVICE", "cpu")

DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
          np.uint64, np.float32, np.float64]
FLOATS = [np.float32, np.float64]


def make(shape, dtype, seed=0, low=-50, high=50):
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.integers(0, 2, size=shape).astype(bool)
    if dt.kind == "u":
        return rng.integers(0, min(high, np.iinfo(dt).max) + 1, size=shape).astype(dt)
    if dt.kind == "i":
        return rng.integers(max(low, np.iinfo(dt).min), min(high, np.iinfo(dt).max) + 1,
                            size=shape).astype(dt)
    return (rng.standard_normal(shape) * 10).astype(dt)


def layouts(shape, dtype, seed=0):
    """The same logical values in several memory layouts."""
    base = make(shape, dtype, seed)
    out = {"contiguous": base}
    if base.ndim >= 1 and base.size:
        big = make(tuple(2 * d for d in shape), dtype, seed + 1)
        sl = tuple(slice(None, None, 2) for _ in shape)
        strided = big[sl]
        strided[...] = base
        out["strided"] = strided
        neg = np.ascontiguousarray(base[::-1])[::-1]
        out["negative"] = neg
    if base.ndim == 2:
        out["fortran"] = np.asfortranarray(base)
    return out


def _compiled():
    """Results of compiled kernels may differ from NumPy's in the last bits (libm vs
    NumPy's own SIMD math, summation order); the reference path must match exactly."""
    import os
    from npcompile.backends import cpu
    return (cpu.AVAILABLE or DEVICE == "cuda") and os.environ.get("NPC_BACKEND") != "reference"


def _close(got, exp):
    eps = np.finfo(exp.dtype).eps
    scale = max(1.0, float(np.nanmax(np.abs(exp[np.isfinite(exp)])))) if np.isfinite(exp).any() else 1.0
    np.testing.assert_allclose(got, exp, rtol=64 * eps, atol=64 * eps * scale, equal_nan=True)


def host_value(got):
    """What a result holds, on the host: device="cuda" returns NumPy scalars as 0-d
    DeviceArrays (left on the GPU, unwaited), so type checks compare what they hold."""
    if type(got).__name__ == "DeviceArray":
        return got.get()[()] if got.ndim == 0 else got.get()
    return got


# the GPU's reductions add in another order than NumPy's pairwise sums: an iterative
# solver run for many steps drifts by more than a few units of rounding
GPU_ULP = 1 << 16


def same(got, exp, ulp=0):
    """Equal in type, dtype, shape and value (NaNs equal; floats within ulp when asked,
    within a few units of rounding on the compiled path)."""
    if type(got).__name__ == "DeviceArray":  # device="cuda": compare what it holds
        got = got.get()[()] if isinstance(exp, np.generic) else got.get()
    if isinstance(exp, (tuple, list)):
        assert type(got) is type(exp) and len(got) == len(exp)
        for g, e in zip(got, exp):
            same(g, e, ulp)
        return
    if isinstance(exp, dict):
        assert got.keys() == exp.keys()
        for k in exp:
            same(got[k], exp[k], ulp)
        return
    if not isinstance(exp, (np.ndarray, np.generic)):
        assert type(got) is type(exp), (type(got), type(exp))
        assert got == exp or (got != got and exp != exp)
        return
    assert type(got) is type(exp), f"type {type(got)} != {type(exp)}"
    assert got.dtype == exp.dtype, f"dtype {got.dtype} != {exp.dtype}"
    assert got.shape == exp.shape, f"shape {got.shape} != {exp.shape}"
    if ulp and exp.dtype.kind in "fc":
        np.testing.assert_array_max_ulp(got, exp, maxulp=ulp)
    elif exp.dtype.kind in "fc" and _compiled() and not np.array_equal(got, exp, equal_nan=True):
        _close(np.asarray(got), np.asarray(exp))
    else:
        assert np.array_equal(got, exp, equal_nan=exp.dtype.kind in "fc"), f"{got} != {exp}"


def run_both(fn, *args, **jit_options):
    """fn on copies eagerly and through npcompile.jit, twice: [(got, args_after_jit)] per
    call, expected, args_after_eager. The second call on fresh copies is the one that
    replays the first (api/replay.py) when the function allows it. Warnings NumPy raises
    are the same either way and ignored here."""
    a_eager = copy.deepcopy(args)
    calls = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            exp = fn(*a_eager)
            jit_options.setdefault("device", DEVICE)
            jitted = npcompile.jit(fn, **jit_options)
            for _ in range(2):
                a_jit = copy.deepcopy(args)
                calls.append((jitted(*a_jit), a_jit))
    return calls, exp, a_eager


class Raised:
    """What check() returns when eager NumPy raised (and npcompile raised the same)."""

    def __init__(self, exc):
        self.exc = exc


def check(fn, *args, ulp=0, **jit_options):
    """Same result as eager NumPy, or the same exception type when NumPy raises."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with np.errstate(all="ignore"):
                fn(*copy.deepcopy(args))
    except Exception as e:
        with pytest.raises(type(e)):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                with np.errstate(all="ignore"):
                    npcompile.jit(fn, **{"device": DEVICE, **jit_options})(*copy.deepcopy(args))
        return Raised(e)
    calls, exp, a_eager = run_both(fn, *args, **jit_options)
    for got, a_jit in calls:
        same(got, exp, ulp)
        for g, e in zip(a_jit, a_eager):  # in-place updates land in the caller's arrays
            if isinstance(e, np.ndarray):
                same(g, e, ulp)
    return calls[0][0]


@pytest.fixture(autouse=True)
def fresh_session():
    npcompile.reset()
    yield


@pytest.fixture
def no_break_budget():
    """Tests of what a graph break per iteration does (its cost, its graphs) need the
    breaks: the break budget (trace/budget.py BREAK_LIMIT) would end such a call early."""
    from npcompile.trace import budget
    before = budget.BREAK_LIMIT
    budget.set_break_limit(None)
    yield
    budget.set_break_limit(before)


@pytest.fixture
def bodies_compiled_once(monkeypatch):
    """Tests of the body compiled once (api/loop_runner.py) on small arrays: a loop that
    is also a scalar loop nest runs as the nest where its arrays are small
    (LoopRunner.prefer_native); these keep it the body."""
    from npcompile.api import loop_runner
    monkeypatch.setattr(loop_runner, "NEST_PREFERRED_ELEMENTS", -1)
