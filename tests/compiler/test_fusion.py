"""Fusion decisions and the compiled CPU path: kernel counts, no materialized products,
fallback on a failed compile, and the records the reports are made from."""
import json
import os
import sys

import numpy as np
import pytest

import npcompile
from npcompile.backends import cpu
from conftest import check, make

pytestmark = pytest.mark.skipif(not cpu.AVAILABLE or os.environ.get("NPC_BACKEND") == "reference",
                                reason="compiled CPU path not in use")
sys.path.insert(0, os.environ.get("NPC_BENCH_DIR") or
                os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "bench"))
import workloads  # noqa: E402


def program_of(fn, *args):
    npcompile.reset()
    npcompile.jit(fn)(*args)
    entries = list(npcompile.ENGINE.cache.entries.values())
    assert len(entries) == 1
    assert entries[0].compiled is not None, npcompile.report()["fallbacks"]
    return entries[0].compiled


def test_kmeans_is_one_kernel_reading_X_once():
    X, means = workloads.make_inputs("kmeans", np.float64, scale=0.001)
    p = program_of(workloads.kmeans, X, means)
    kernels = [s for s in p.steps if s[0] == "kernel"]
    assert len(kernels) == 1
    k = kernels[0][1].kernel
    assert k.shape == (X.shape[0],) and k.outputs[0].dtype == np.int64
    # X is an input of the kernel exactly once, and nothing else the size of X is written
    assert sum(1 for b in k.inputs if b.shape == X.shape) == 1


def test_normalize_outer_never_materializes_the_product():
    X, Y = workloads.make_inputs("normalize_outer", np.float32, scale=0.01)
    X, Y = X[:64, :40], Y[:64, :40]
    p = program_of(workloads.normalize_outer, X, Y)
    big = X.shape[0] * X.shape[1] * Y.shape[1]
    for kind, step in p.steps:
        if kind == "kernel":
            for out in step.kernel.outputs:
                assert int(np.prod(out.shape)) < big
        else:
            n = p.nodes[step]
            assert int(np.prod(n.shape)) < big or n.label in ("getitem",), n


def test_pointwise_chain_is_one_kernel_with_two_outputs():
    def f(x, y):
        a = np.sin(x) * y + 1
        b = np.sqrt(np.abs(a)) - x
        return a, b
    p = program_of(f, make((100,), np.float64), make((100,), np.float64, 1))
    kernels = [s for s in p.steps if s[0] == "kernel"]
    assert len(kernels) == 1 and len(kernels[0][1].kernel.outputs) == 2


def test_failed_compile_falls_back_with_right_result(monkeypatch):
    import npcompile.codegen.cpp as cg
    real = cg.render_kernel

    def broken(kernel, buffer_of):
        real(kernel, buffer_of)
        kernel.body += "\nthis is not C++;\n"  # what the graph's module is made of
        return kernel
    monkeypatch.setattr("npcompile.backends.cpu.render_kernel", broken)
    x = make((50,), np.float64)
    got = check(lambda a: np.exp(a) * 2 - 1, x)
    fb = npcompile.report()["fallbacks"]
    assert fb and "compile failed" in fb[0]["reason"] and "this is not C++" in fb[0]["reason"]
    assert got is not None


def test_reports_hold_breaks_kernels_sources_and_chrome_trace(tmp_path):
    def f(x):
        y = np.cos(x) * 3
        if y.sum() > 0:
            y = y - 1
        return y
    npcompile.reset()
    jf = npcompile.jit(f)
    jf(make((32,), np.float64))
    jf(make((32,), np.float32))
    r = npcompile.report()
    assert r["graph_breaks"] and r["recompiles"] and r["compiles"] and r["kernels"]
    assert r["recompiles"][0]["reason"].startswith("x: dtype float64 -> float32")
    assert any("cos" in s["source"] for s in r["kernel_sources"])
    path = tmp_path / "trace.json"
    npcompile.export_chrome_trace(path)
    doc = json.loads(path.read_text())
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    phases = {e.get("ph") for e in events}
    assert "X" in phases and "i" in phases
    names = " ".join(str(e.get("name")) for e in events)
    assert "npc_" in names
    bundle = npcompile.mime_bundle(last=False)
    assert "bool() of an array value" in bundle["text/html"]
    assert "application/vnd.npcompile.report+json" in bundle


def test_lower_returns_the_compiled_source():
    X, means = workloads.make_inputs("kmeans", np.float32, scale=0.001)
    low = npcompile.jit(workloads.kmeans).lower(X, means)
    assert len(low.kernels) == 1
    k = low.kernels[0]
    assert k.target == "cpu" and k.name in k.source and "sqrtf" in k.source
    assert "np.argmin(np.linalg.norm(X - means[:, None], axis=2), axis=0)" in k.source
    from npcompile._native import cpu as native
    # the text compiles on its own to the kernel's symbol (a cache hit only where a
    # disk cache from an earlier run holds it: the program compiled it inside a unit)
    assert native.compile(k.source, [k.name])["addresses"]
    body = k.source[k.source.index('extern "C" void ' + k.name):]
    units = [src for prog in low.graphs for src in getattr(prog, "module_sources", [])]
    assert all(body in src for src in units if k.name in src)
