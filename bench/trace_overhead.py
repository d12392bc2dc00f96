"""Tracing overhead: what npcompile adds on top of the kernels it runs.

    PYTHONPATH=<install dir> /usr/bin/python3 bench/trace_overhead.py [--reps 2000] [--profile]

Two figures, medians of many repetitions (shared machines are noisy):
  * us per traced op: a long chain of small-array ops recorded inside one trace
    (operators, ufuncs with scalars, unary ufuncs), no flush;
  * us per cached call of a 10-op pointwise function on 8-element arrays: replayed
    (the default: api/replay.py runs the compiled program without the body), and
    traced every time (replay=False), the latter split into
    trace (running the function body on lazy arrays), guard + cache lookup (the graph's
    structural key and per-input guards, then the cache hit) and run (the compiled
    kernels and the flush's bookkeeping: the rest of the call).
Targets (the issue): 2 us per traced op, 20 us per cached 10-op call.
--profile prints cProfile's top entries for each figure."""
import argparse
import cProfile
import pstats
import statistics
import time

import numpy as np

import npcompile
from npcompile.exec.engine import ENGINE, SiteInfo
from npcompile.trace.tracer import Tracer

CHAIN_OPS = 1000
N = 8


def chain(x, y):
    """CHAIN_OPS recorded ops, a mix of what NumPy code does most."""
    z = x
    for _ in range(CHAIN_OPS // 5):
        z = z + y
        z = z * 0.5
        z = np.sin(z)
        z = -z
        z = np.maximum(z, y)
    return z


def ten_ops(x, y):
    a = x * y
    b = a + 1.0
    c = np.sin(b)
    d = c * c
    e = d - y
    f = np.exp(e)
    g = f / 3.0
    h = np.maximum(g, x)
    i = h + a
    return np.sqrt(np.abs(i))


def _site(fn):
    return SiteInfo(("fn", fn), fn.__name__, __file__, 0)


def traced(fn, args, site):
    """fn's body run on lazy arrays (no flush): the trace phase alone. -> (tracer, result)."""
    tracer = Tracer(site, {"device": "cpu", "fullgraph": False, "dynamic": None}, ENGINE)
    with tracer:
        wargs = [tracer.wrap_input(a, f"a{i}") for i, a in enumerate(args)]
        result = fn(*wargs)
    return tracer, result


def lookup(tracer, outputs):
    """What Engine.run does before running: the graph's key and guards, then the cache."""
    leaves, pending, entry, *_ = ENGINE.cache.lookup_graph(
        (tracer.site.key, tracer.flush_index), outputs, tracer.options.get("dynamic"))
    return entry, leaves + pending


def median_us(fn, reps, inner=1):
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        ts.append((time.perf_counter() - t0) / inner)
    return statistics.median(ts) * 1e6


def per_op(reps):
    x, y = np.ones(N), np.full(N, 2.0)
    site = _site(chain)
    return median_us(lambda: traced(chain, (x, y), site), reps) / CHAIN_OPS


def cached_call(reps):
    x, y = np.linspace(0.0, 1.0, N), np.full(N, 2.0)
    f = npcompile.jit(ten_ops, replay=False)
    f(x, y)  # compile once
    total = median_us(lambda: f(x, y), reps)
    r = npcompile.jit(ten_ops)   # the default: calls after the first replay it
    r(x, y)
    replayed = median_us(lambda: r(x, y), reps)
    np.testing.assert_allclose(r(x, y), ten_ops(x, y), rtol=1e-12)
    site = SiteInfo(("fn", ten_ops), ten_ops.__name__, __file__, 0)
    trace = median_us(lambda: traced(ten_ops, (x, y), site), reps)
    tracer, out = traced(ten_ops, (x, y), site)
    outputs = [out._n]
    guard = median_us(lambda: lookup(tracer, outputs), reps)
    entry, nodes = lookup(tracer, outputs)
    kernels = median_us(lambda: entry.compiled.run(nodes), reps) if entry.compiled else 0.0
    np.testing.assert_allclose(f(x, y), ten_ops(x, y), rtol=1e-12)
    return replayed, total, trace, guard, kernels


def profile(label, fn, reps):
    print(f"--- cProfile: {label} ---")
    pr = cProfile.Profile()
    pr.enable()
    for _ in range(reps):
        fn()
    pr.disable()
    pstats.Stats(pr).sort_stats("tottime").print_stats(18)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=2000)
    ap.add_argument("--profile", action="store_true")
    a = ap.parse_args()
    npcompile.reset()
    op = per_op(max(20, a.reps // 100))
    replayed, total, trace, guard, kernels = cached_call(a.reps)
    print(f"traced op ({CHAIN_OPS}-op chain, {N} elements): {op:6.2f} us/op   (target 2)")
    print(f"cached call, 10 ops, {N} elements, replayed: {replayed:6.1f} us   (target 20)")
    print(f"the same call traced (replay=False):     {total:6.1f} us")
    print(f"  trace                {trace:6.1f} us")
    print(f"  guard + cache lookup {guard:6.1f} us")
    print(f"  run (kernels)        {kernels:6.1f} us")
    print(f"  rest (flush, records){total - trace - guard - kernels:6.1f} us")
    if a.profile:
        x, y = np.ones(N), np.full(N, 2.0)
        profile("traced chain", lambda: traced(chain, (x, y), _site(chain)), 20)
        f = npcompile.jit(ten_ops)
        profile("cached 10-op call, replayed", lambda: f(x, y), 2000)
        f = npcompile.jit(ten_ops, replay=False)
        profile("cached 10-op call, traced", lambda: f(x, y), 2000)


if __name__ == "__main__":
    main()
