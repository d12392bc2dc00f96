"""bench/run_programs.py's value check: a float difference from NumPy that is float32
rounding is told apart from a wrong number."""
import pathlib
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "bench"))
import run_programs as rp  # noqa: E402


def _program(x, e=None):
    # a cancellation like Black-Scholes' call - S + disc, in float64, of a float32 exp and
    # a float64 one (explicit casts: the same under NumPy 1.x and 2.x promotion): the
    # float32 exp's rounding shows, 3000x larger than the result's own
    e = np.exp(x) if e is None else e
    return e.astype(np.float64) * 3.0 - np.exp(x.astype(np.float64)) * 2.999


def test_float32_rounding_is_not_a_wrong_number():
    x = np.linspace(-3, 3, 1000, dtype=np.float32)
    ref = _program(x)
    exact = _program(*rp.widened((x,)))
    # another exp implementation: one ulp off in places
    other = np.exp(x)
    other[::7] = np.nextafter(other[::7], np.float32(np.inf))
    got = _program(x, other)
    assert not np.allclose(got, ref, rtol=1e-6, atol=1e-8)
    assert rp.rounding_only(ref, got, exact) is not None


def test_a_wrong_number_stays_wrong():
    x = np.linspace(-3, 3, 1000, dtype=np.float32)
    ref = _program(x)
    exact = _program(*rp.widened((x,)))
    got = ref.copy()
    got[-1] *= 1.01     # its largest value, 1% off
    assert rp.rounding_only(ref, got, exact) is None
    # no float32 input: nothing to widen, no excuse
    assert rp.widened((np.ones(3), 2.0)) is None
