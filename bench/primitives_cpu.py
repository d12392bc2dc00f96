"""Gathers, scans and matrix products on the CPU at 10^7 elements (issue 15's figures):
each as NumPy runs it, as npcompile compiles it, and its share of copy bandwidth
(a plain x.copy() measured in the same run: bytes read + written per second).

    python bench/primitives_cpu.py [--n 10000000] [--reps 9]
"""
import argparse
import statistics
import time

import numpy as np


def median_time(f, args, reps):
    f(*args)
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        f(*args)
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def cases(n):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(n)
    idx = rng.integers(0, n, n)
    perm = np.arange(n)[::-1].copy()
    A = rng.standard_normal((1024, 1024))
    B = rng.standard_normal((1024, 1024))
    return [
        # name, function, args, bytes moved (read + write)
        ("copy", lambda x: x.copy(), (x,), 16 * n),
        ("gather x[idx] (random)", lambda x, i: x[i], (x, idx), 24 * n),
        ("gather x[perm] (reversed)", lambda x, i: x[i], (x, perm), 24 * n),
        ("gather+fuse sin(x[idx])*2", lambda x, i: np.sin(x[i]) * 2.0, (x, idx), 24 * n),
        ("cumsum", lambda x: np.cumsum(x), (x,), 16 * n),
        ("cumsum of x*x", lambda x: np.cumsum(x * x), (x,), 16 * n),
        ("matmul 1024", lambda a, b: a @ b, (A, B), 3 * 8 * 1024 ** 2),
        ("tanh(A@B + 1) 1024", lambda a, b: np.tanh(a @ b + 1.0), (A, B), 3 * 8 * 1024 ** 2),
    ]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10_000_000)
    ap.add_argument("--reps", type=int, default=9)
    opts = ap.parse_args()
    import npcompile
    copy_bw = None
    print(f"{'case':28s} {'numpy':>9s} {'npc':>9s} {'xNumPy':>7s} {'% copy bw':>9s} kernels")
    for name, fn, args, nbytes in cases(opts.n):
        npcompile.reset()
        jf = npcompile.jit(fn, choose=False)
        got, want = jf(*args), fn(*args)
        assert np.allclose(got, want), name
        kernels = sum(c["kernels"] for c in npcompile.report()["compiles"])
        t_np = median_time(fn, args, opts.reps)
        t_npc = median_time(jf, args, opts.reps)
        bw = nbytes / t_npc
        if name == "copy":
            copy_bw = nbytes / min(t_np, t_npc)
        print(f"{name:28s} {t_np * 1e3:8.2f}m {t_npc * 1e3:8.2f}m {t_np / t_npc:6.2f}x "
              f"{100 * bw / copy_bw:8.0f}% {kernels}", flush=True)


if __name__ == "__main__":
    main()
