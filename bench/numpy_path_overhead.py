"""Where a jitted call that chose plain NumPy loses time against NumPy itself (the
H200's host read 0.80-0.90x on programs of 0.2-40 ms): per program, medians of calls
taken in turns of eager NumPy, the jit as users get it, its NumPy path alone (no path
choice, no key), the jit with a device synchronize after each call, and NumPy again
(the noise floor).

    python bench/numpy_path_overhead.py [--device cuda] [--reps 40] prog1 prog2 ...
"""
import argparse
import copy
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_programs import load_program  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--reps", type=int, default=40)
    ap.add_argument("--profile", type=int, default=0,
                    help="then print the N functions the jitted calls spend most time in")
    ap.add_argument("programs", nargs="+")
    opts = ap.parse_args()
    import numpy as np  # noqa: F401
    import npcompile
    for name in opts.programs:
        mod = load_program(name)
        inputs = mod.make_inputs("small")
        jf = npcompile.jit(mod.run, device=opts.device)
        for _ in range(40):
            jf(*copy.deepcopy(inputs))
        choices = npcompile.report().get("path_choices") or [{}]
        if not npcompile.report().get("path_choices"):
            choices = []

        def synced(*a):
            out = jf(*a)
            npcompile.synchronize()
            return out
        # "numpy again" is NumPy itself timed as a second side: the noise floor, since a
        # shared host reads identical calls 5% apart (tanh_diag 0.121 against 0.128 ms)
        sides = {"numpy": mod.run, "jit": jf, "numpy path": jf._eager, "jit+sync": synced,
                 "numpy again": mod.run}
        times = {k: [] for k in sides}
        names = list(sides)
        for rep in range(opts.reps):
            # each side follows every other in turn, so that none always runs right
            # after the same one (caches and the allocator as the side before left them)
            for k in names[rep % len(names):] + names[:rep % len(names)]:
                f = sides[k]
                args = copy.deepcopy(inputs)
                t0 = time.perf_counter()
                f(*args)
                times[k].append(time.perf_counter() - t0)
        med = {k: statistics.median(v) * 1e3 for k, v in times.items()}
        # the spread says whether the jit's median is a steady cost or a few slow calls
        # (the path choice rechecking the other paths)
        for k in ("numpy", "jit", "numpy path"):
            q = statistics.quantiles([t * 1e3 for t in times[k]], n=4)
            print(f"    {k:10s} min {min(times[k]) * 1e3:.3f}  quartiles " +
                  " ".join(f"{x:.3f}" for x in q) + f"  max {max(times[k]) * 1e3:.3f} ms")
        print(f"    path choices made while timing: "
              f"{len(npcompile.report().get('path_choices') or []) - len(choices)}")
        print(f"{name:22s} chose {(choices or [{}])[-1].get('choice', 'compiled'):8s} " +
              "  ".join(f"{k} {v:.3f} ms" for k, v in med.items()) +
              f"  numpy/jit {med['numpy'] / med['jit']:.2f}"
              f"  numpy/numpy again {med['numpy'] / med['numpy again']:.2f}", flush=True)
        if opts.profile:
            profile(jf, inputs, opts.profile)


def profile(jf, inputs, top):
    import cProfile
    import pstats
    pr = cProfile.Profile()
    pr.enable()
    for _ in range(200):
        jf(*inputs)
    pr.disable()
    pstats.Stats(pr, stream=sys.stdout).sort_stats("tottime").print_stats(top)


if __name__ == "__main__":
    main()
