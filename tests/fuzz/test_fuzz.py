"""The differential fuzzer's fixed seeds, in make test (under both NumPy versions): each
program's four calls (first, replayed, recompiled, first arguments again) agree with
eager NumPy. `make fuzz MINUTES=N` runs a long campaign from fresh seeds."""
import numpy as np
import pytest

from fuzz import check, outcome, report, within_conditioning

SEEDS = range(0, 300)


@pytest.mark.parametrize("block", range(0, len(SEEDS), 50))
def test_random_programs_agree_with_numpy(block):
    failures = []
    for seed in SEEDS[block:block + 50]:
        why = check(seed)
        if why:
            failures.append(report(seed, why))
    assert not failures, "\n".join(failures)


def test_rounding_carried_into_integers_or_written_in_place_is_not_a_failure():
    """Seeds of a 30-minute campaign whose differences are a last bit of NumPy's own:
    np.fmod of log1p(b) * 1e300 written into b in place, np.tanh of int32 values written
    back as int32 (-1 or 0 by tanh's last bit), the sine of float32 exp(76), where
    NumPy's exp is one below the correctly rounded value, and the sine of an operator's
    result, int8 ** uint64 in float64 (14.0 ** 82.0: NumPy's power one below libm's),
    and np.tanh(19) - 0.5 ** False, where libm's tanh one below 1.0 leaves -1.1e-16 for
    NumPy's 0.0 (nudged together with the power's 1.0, the two cancelled: the
    functions' and the operators' nudges run apart)."""
    for seed in (5980465, 5983268, 5989288, 5999270, 5997887):
        assert check(seed) is None, report(seed, check(seed))


def test_the_conditioning_check_still_sees_a_wrong_integer_and_a_wrong_write():
    """The same check finds no conditioning where nudging NumPy's floats moves nothing."""

    def f(a, b):
        b += np.sin(a)
        return (a * 3).astype(np.int64) + 1

    args = [np.linspace(0.05, 2.05, 7), np.zeros(7)]   # (3a: no integer boundary near)
    exp = outcome(f, args)
    wrong_int = (exp[0] + np.eye(1, 7, 3, dtype=np.int64)[0], exp[1])
    assert not within_conditioning(f, args, exp, wrong_int)
    wrong_write = (exp[0], (exp[1][0], exp[1][1] + 1e-3))
    assert not within_conditioning(f, args, exp, wrong_write)
    assert within_conditioning(f, args, exp, exp)


def test_a_numpy_integer_scalar_out_of_range_written_into_an_integer_array():
    """Seed 8505378 (NumPy 2): `c[::2] = np.abs(2**53 + 1)` into an int16 array. NumPy 2
    writes a NumPy integer scalar as a Python int and raises OverflowError; the graph's
    cast wrapped it. NumPy 1 wraps it (and says so in a warning or not): both versions
    are asked of NumPy itself."""
    assert check(8505378) is None, report(8505378, check(8505378))
