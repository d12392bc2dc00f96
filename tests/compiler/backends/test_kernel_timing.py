"""Kernel times are recorded in full for a program's first runs, then sampled: a loop
unrolled into a graph runs hundreds of kernels per call, and one record per run made
the session grow without end (and cost more than the kernels)."""
import os

import numpy as np
import pytest

import npcompile
from npcompile.backends import cpu
from npcompile.backends.program_base import TIMED_RUNS, KernelTiming

pytestmark = pytest.mark.skipif(
    not cpu.AVAILABLE or os.environ.get("NPC_BACKEND") == "reference",
    reason=cpu.UNAVAILABLE_REASON or "checks the compiled path")



@pytest.fixture(autouse=True)
def _bodies(bodies_compiled_once):
    """Small arrays: the body compiled once, not the loop nest that would take them."""


def test_budget_then_powers_of_two():
    t = KernelTiming()
    timed = []
    for call in range(1, 200):
        if t.timed():
            timed.append(call)
            t.ran(50)                    # 50 kernel runs per call
    full = -(-TIMED_RUNS // 50)          # calls until the budget is spent
    assert timed[:full] == list(range(1, full + 1))
    assert timed[full:] == [c for c in (8, 16, 32, 64, 128) if c > full]


def test_session_records_stay_bounded():
    npcompile.reset()

    @npcompile.jit(choose=False)
    def f(u):
        for _ in range(40):
            u[1:-1] = u[1:-1] + 0.25 * (u[2:] - 2 * u[1:-1] + u[:-2])
        return u

    u0 = np.linspace(0, 1, 64) ** 2
    for _ in range(300):
        got = f(u0.copy())
    ref = u0.copy()
    for _ in range(40):
        ref[1:-1] = ref[1:-1] + 0.25 * (ref[2:] - 2 * ref[1:-1] + ref[:-2])
    np.testing.assert_array_equal(got, ref)
    rep = npcompile.report()
    runs = [k for k in rep["kernels"] if k["target"] == "cpu"]
    assert not rep["fallbacks"]
    assert TIMED_RUNS <= len(runs) < TIMED_RUNS + 40 * 10, len(runs)
