"""device="cuda"'s host path (api/path_choice.py): the function compiled for the CPU, its
results handed to the GPU as the NumPy path's are, chosen where it is fastest. Small
programs are launch-bound on a GPU: on the H200 most corpus programs chose plain NumPy,
where the same code compiled for the host ran faster than both."""
import os
import sys
import warnings

import numpy as np
import pytest

import npcompile
from npcompile.api import path_choice
from npcompile.backends import cpu
from conftest import host_value, same
from test_loops_path import _choose

needs_cpu = pytest.mark.skipif(not cpu.AVAILABLE or os.environ.get("NPC_BACKEND") == "reference",
                               reason="the host path is the CPU backend's")


def test_the_host_path_is_chosen_where_it_is_fastest():
    _, rec = _choose({"compiled": 3e-3, "numpy": 2e-3, "host": 0.5e-3}, "host")
    assert [r["choice"] for r in rec] == ["host"] and rec[0]["host_ms"] == 0.5
    assert "compiled for the host's CPU" in rec[0]["reason"]
    assert "loops_ms" not in rec[0]
    _, rec = _choose({"compiled": 3e-3, "numpy": 2e-3, "host": 2.05e-3}, "host")
    assert [r["choice"] for r in rec] == ["numpy"]          # within the margin: NumPy
    assert "2.050 ms compiled on the host" in rec[0]["reason"]
    assert "3.000 ms compiled on the GPU" in rec[0]["reason"]
    _, rec = _choose({"compiled": 1e-3, "numpy": 2e-3, "host": 1.5e-3}, "host")
    assert [r["choice"] for r in rec] == ["compiled"]


def stencil(u, steps):
    for _ in range(steps):
        u[1:-1] = u[1:-1] + 0.25 * (u[2:] - 2 * u[1:-1] + u[:-2])
    return u.sum(), u * 2


def _host(monkeypatch, fn):
    """A device="cuda" jit's host path as the chooser runs it (this machine may have no
    GPU, where the path is not offered)."""
    j = npcompile.jit(fn, device="cuda", choose=True)
    monkeypatch.setattr(j, "_offers_host", True)
    assert j._third_path((np.ones(3), 1), {}) == "host"
    return lambda *args: j._run_path("host", args, {})


@needs_cpu
def test_the_host_path_runs_cpu_kernels_with_numpys_values(monkeypatch):
    npcompile.reset()
    j = _host(monkeypatch, stencil)
    u = np.linspace(0.0, 1.0, 50) ** 2
    for _ in range(3):
        mine, theirs = u.copy(), u.copy()
        got = j(mine, 20)
        exp = stencil(theirs, 20)
        same(tuple(host_value(g) for g in got), exp)
        same(mine, theirs)                      # the argument written in place
    rep = npcompile.report()
    assert rep["fallbacks"] == []
    assert {c["target"] for c in rep["compiles"]} == {"cpu"} and \
        sum(c["kernels"] for c in rep["compiles"]) > 0 or \
        any("compiled" in lp["summary"] for lp in rep["loops"])


def test_not_offered_for_device_arrays_or_on_the_cpu(monkeypatch):
    j = npcompile.jit(stencil, device="cuda")
    monkeypatch.setattr(j, "_offers_host", True)
    assert j._third_path((np.ones(3), 2), {}) == "host"

    class Dev:        # a registered device array type: written back in place, not offered
        pass
    monkeypatch.setattr(sys.modules["npcompile.api.jit"], "DEVICE_TYPES", {Dev})
    assert j._third_path((Dev(), 2), {}) is None
    assert npcompile.jit(lambda a: a + 1)._third_path((np.ones(3),), {}) is None



@needs_cpu
@pytest.mark.skipif(not npcompile.cuda_available()[0], reason="the host path is offered beside a GPU")
def test_on_a_gpu_the_host_path_is_timed_and_its_results_are_device_arrays():
    npcompile.reset()
    j = npcompile.jit(stencil, device="cuda", choose=True)
    u = np.linspace(0.0, 1.0, 50) ** 2
    for _ in range(path_choice.WARMUP_CALLS + 3):
        mine, theirs = u.copy(), u.copy()
        got = j(mine, 20)
        assert type(got[1]).__name__ == "DeviceArray"
        same(tuple(host_value(g) for g in got), stencil(theirs, 20))
        same(mine, theirs)
    rep = npcompile.report()
    (rec,) = rep["path_choices"]
    assert rec["host_ms"] > 0 and rec["choice"] in ("compiled", "numpy", "host")
    # the host path compiled for the CPU (the GPU's programs are not the CPU's)
    assert {c["target"] for c in rep["compiles"]} >= {"cuda", "cpu"}, rep["compiles"]


def sine(a):
    return np.sin(a) * 2 + 1


@needs_cpu
def test_the_same_function_jitted_for_each_device_has_a_program_for_each():
    """The graph cache keys a program by its device too: the host path's function is the
    CUDA jit's own, and its graphs the same; the CPU jit found the CUDA program and ran
    it, so the host path timed the GPU again (the H200's first run: equal times)."""
    npcompile.reset()
    a = np.linspace(0, 1, 10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # without a GPU: "runs on the CPU here"
        same(host_value(npcompile.jit(sine, device="cuda", choose=False)(a)), sine(a))
    same(npcompile.jit(sine, choose=False)(a), sine(a))
    compiles = npcompile.report()["compiles"]
    assert len(compiles) == 2, compiles
    assert compiles[1]["target"] == "cpu"
    if npcompile.cuda_available()[0]:
        assert compiles[0]["target"] == "cuda"


def inverse_or_element(a, k):
    return np.linalg.inv(a) if k else a[5]


def scaled(a, *, scale=2.0):
    return a * scale


@needs_cpu
def test_the_host_path_raises_numpys_errors_and_takes_keywords(monkeypatch):
    j = _host(monkeypatch, inverse_or_element)
    for args, error in (((np.zeros((2, 2)), 1), np.linalg.LinAlgError),
                        ((np.ones(3), 0), IndexError)):
        with pytest.raises(error):
            inverse_or_element(*args)
        with pytest.raises(error):
            j(*args)
    k = npcompile.jit(scaled, device="cuda", choose=True)
    monkeypatch.setattr(k, "_offers_host", True)
    assert k._third_path((np.ones(3),), {"scale": 3.0}) == "host"
    same(host_value(k._run_path("host", (np.ones(3),), {"scale": 3.0})), scaled(np.ones(3), scale=3.0))
