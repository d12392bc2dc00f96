"""The jit's own cost per call on the path it settled on, with tiny arrays (so that the
cost is not lost in NumPy's time): plain NumPy, the jit's NumPy path alone, and the jit
as users call it, per device, as microseconds a call (medians of repeated loops), and
whether the call ran as a grant from the C base (compiler/trace_core/JitCall.hpp).

    python bench/jit_call_overhead.py [--device cpu|cuda] [--profile] [--parts]

--parts: the granted call's pieces alone (the argument key, NumPy's floating-point
handling, the key's hash, a granted call of a function that does nothing).
"""
import argparse
import statistics
import time

import numpy as np

import npcompile
from npcompile.api import fp_errors
from npcompile.api.replay import choice_key


def tiny(a, b):
    return a * 2.0 + b


def per_call_us(fn, args, n=20000, repeats=7):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(n):
            fn(*args)
        times.append((time.perf_counter() - t0) / n * 1e6)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--parts", action="store_true")
    opts = ap.parse_args()
    args = (np.arange(4.0), np.ones(4))
    jf = npcompile.jit(tiny, device=opts.device)
    for _ in range(300):        # (a compiled call of 4 elements loses to NumPy's 1 us)
        jf(*args)
    key = choice_key(args, {})
    print(f"numpy {np.__version__}; handling known quiet: "
          f"{fp_errors.handling() in fp_errors.QUIET}; choice: "
          f"{jf.chooser._states[key].choice}; grant left: {jf._granted(key)}")
    numpy = per_call_us(tiny, args)
    path = per_call_us(jf._eager, args)
    jit = per_call_us(jf, args)
    print(f"device={opts.device}: numpy {numpy:.2f} us, numpy path {path:.2f} us "
          f"(+{path - numpy:.2f}), jit {jit:.2f} us (+{jit - path:.2f} over its NumPy path)")
    if opts.profile:
        import cProfile
        import pstats
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(20000):
            jf(*args)
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(10)
    if opts.parts:
        parts(args)


def parts(args):
    import timeit
    from npcompile.api.jit import Jitted
    from npcompile.trace_core import core

    def nothing(a, b):
        return None
    key = core.arg_key(args)
    granted = Jitted(nothing)
    granted._grant_numpy(key, -1)
    for name, stmt in [("argument key", lambda: core.arg_key(args)),
                       ("fp handling", fp_errors.handling),
                       ("key's hash", lambda: hash(core.arg_key(args))),
                       ("a Python call", lambda: nothing(*args)),
                       ("a granted call", lambda: granted(*args)),
                       ("an empty lambda", lambda: None)]:
        n = 200000
        print(f"    {name:16s} {min(timeit.repeat(stmt, number=n, repeat=5)) / n * 1e6:.3f} us")


if __name__ == "__main__":
    main()
