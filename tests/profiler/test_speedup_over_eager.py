"""Speedup over eager NumPy: with measuring on, the first run of each compiled graph is
replayed in eager NumPy and timed (the median of warm runs), and the report's
summary line shows the ratio. Off by default; the replay never changes what the user gets."""
import os
import subprocess
import sys

import numpy as np
import pytest

import npcompile
from npcompile._native import profiler as prof
from npcompile.exec import eager_timing

N = 200_000


@pytest.fixture(autouse=True)
def fresh():
    npcompile.reset()
    yield
    npcompile.reset()
    eager_timing.enable(False)


@npcompile.jit
def chain(x, y):
    return np.sqrt(np.abs(np.sin(x) * np.cos(y) + x * y)).sum()


def eager_events():
    return prof.events(type="eager_timing")


def test_off_by_default():
    chain(np.linspace(0, 1, N), np.linspace(1, 2, N))
    assert eager_events() == []
    summary = prof.report()["summary"]
    assert summary["speedup"] == 0
    assert "speedup over eager" not in prof.render_text()


def test_measured_once_per_graph_and_shown_in_the_summary():
    x, y = np.linspace(0, 1, N), np.linspace(1, 2, N)
    with eager_timing.measuring():
        for _ in range(3):
            assert np.isclose(chain(x, y), np.sqrt(np.abs(np.sin(x) * np.cos(y) + x * y)).sum())
    events = eager_events()
    assert len(events) == 1 and events[0]["ms"] > 0
    graph = events[0]["graph_id"]
    assert any(k["graph_id"] == graph for k in prof.events(type="kernel_run"))
    summary = prof.report()["summary"]
    assert summary["eager_ms"] > 0 and summary["compiled_ms"] > 0
    assert summary["speedup"] == pytest.approx(summary["eager_ms"] / summary["compiled_ms"])
    assert "speedup over eager NumPy" in prof.render_text().splitlines()[1]
    assert "speedup over eager NumPy" in prof.render_html()


def test_the_replay_changes_nothing_the_user_sees():
    def f(a, b):
        a += 1.0          # an in-place write to the caller's array
        b[::2] = 0.0      # and a strided one
        return (a * b).sum()

    a0, b0 = np.arange(10.0), np.linspace(1, 2, 10)
    a1, b1 = a0.copy(), b0.copy()
    expected = f(a1, b1)  # eager NumPy
    a2, b2 = a0.copy(), b0.copy()
    with eager_timing.measuring():
        got = npcompile.jit(f)(a2, b2)
    assert eager_events(), "nothing was measured"
    assert got == expected
    np.testing.assert_array_equal(a2, a1)
    np.testing.assert_array_equal(b2, b1)


def test_enable_and_the_environment_switch():
    eager_timing.enable()
    chain(np.linspace(0, 1, N), np.linspace(1, 2, N))
    assert len(eager_events()) == 1
    code = ("import numpy as np, npcompile\n"
            "from npcompile._native import profiler as prof\n"
            "npcompile.jit(lambda x: (x * 2 + 1).sum())(np.arange(1000.0))\n"
            "print(len(prof.events(type='eager_timing')))\n")
    for value, count in (("1", "1"), ("0", "0")):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env=dict(os.environ, NPC_MEASURE_EAGER=value), timeout=120,
                             check=True)
        assert out.stdout.split()[-1] == count


def test_the_eager_time_is_a_median_of_warm_runs_and_says_how_many(monkeypatch):
    calls = []
    real = eager_timing.reference.execute

    def counted(*a):
        calls.append(1)
        return real(*a)
    monkeypatch.setattr(eager_timing.reference, "execute", counted)
    eager_timing.enable(True)
    chain(np.linspace(0, 1, 1000), np.linspace(1, 2, 1000))
    # one run that warms NumPy up, then WARM_RUNS timed
    assert len(calls) == eager_timing.WARM_RUNS + 1
    (timing,) = prof.report()["graph_timings"]
    assert timing["eager_runs"] == eager_timing.WARM_RUNS and timing["eager_ms"] > 0
    assert "eager runs timed" in prof.render_html()


def test_a_slow_graph_is_timed_once(monkeypatch):
    monkeypatch.setattr(eager_timing, "BUDGET_S", 0.0)
    eager_timing.enable(True)
    chain(np.linspace(0, 1, 1000), np.linspace(1, 2, 1000))
    (timing,) = prof.report()["graph_timings"]
    assert timing["eager_runs"] == 1
