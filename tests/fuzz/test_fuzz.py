"""The differential fuzzer's fixed seeds, in make test (under both NumPy versions): each
program's four calls (first, replayed, recompiled, first arguments again) agree with
eager NumPy. `make fuzz MINUTES=N` runs a long campaign from fresh seeds."""
import pytest

from fuzz import check, report

SEEDS = range(0, 300)


@pytest.mark.parametrize("block", range(0, len(SEEDS), 50))
def test_random_programs_agree_with_numpy(block):
    failures = []
    for seed in SEEDS[block:block + 50]:
        why = check(seed)
        if why:
            failures.append(report(seed, why))
    assert not failures, "\n".join(failures)
