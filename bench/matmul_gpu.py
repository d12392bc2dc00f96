"""Matrix products on the GPU: npcompile (device="cuda", cuBLAS since the seventh
session) against CuPy and NumPy on the host, medians of timed calls with the results
left on the device (a synchronize after each), and the share of the H200's peak
(~67 TFLOP/s fp32 and fp64 dense without tensor cores; 4.8 TB/s for matrix-vector).

    python bench/matmul_gpu.py [--reps 20]
"""
import argparse
import statistics
import time

import numpy as np


def products():
    """(name, function, argument shapes, dtype, flops, bytes)"""
    out = []
    for n, dt in ((1024, np.float32), (4096, np.float32), (1024, np.float64), (4096, np.float64)):
        out.append((f"gemm {n} {np.dtype(dt).name}", lambda a, b: a @ b, [(n, n), (n, n)], dt,
                    2 * n ** 3, 3 * n * n * np.dtype(dt).itemsize))
    n = 4096
    out.append(("gemv 4096 float64", lambda a, b: a @ b, [(n, n), (n,)], np.float64,
                2 * n * n, n * n * 8))
    out.append(("gemm^T 2048 float32", lambda a, b: a.T @ b, [(2048, 2048), (2048, 2048)],
                np.float32, 2 * 2048 ** 3, 3 * 2048 * 2048 * 4))
    out.append(("batched 64x256 float32", lambda a, b: a @ b, [(64, 256, 256), (64, 256, 256)],
                np.float32, 2 * 64 * 256 ** 3, 3 * 64 * 256 * 256 * 4))
    out.append(("tanh(A@B + 1) 2048 float32", lambda a, b: np.tanh(a @ b + 1.0),
                [(2048, 2048), (2048, 2048)], np.float32, 2 * 2048 ** 3, 3 * 2048 * 2048 * 4))
    return out


def median_time(f, args, sync, reps):
    f(*args)
    sync()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        f(*args)
        sync()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=20)
    opts = ap.parse_args()
    import cupy
    import npcompile
    from npcompile.backends import cuda_blas
    print("cuBLAS:", cuda_blas.available())
    print(f"{'product':28s} {'numpy':>10s} {'cupy':>10s} {'npc':>10s} {'npc/cupy':>9s} "
          f"{'xNumPy':>8s} {'TFLOP/s':>8s} {'cold':>8s}")
    for name, fn, shapes, dt, flops, nbytes in products():
        rng = np.random.default_rng(0)
        host = [rng.standard_normal(s).astype(dt) for s in shapes]
        dev = [npcompile.to_device(h) for h in host]
        cp_args = [cupy.asarray(h) for h in host]
        jf = npcompile.jit(fn, device="cuda", choose=False)
        t0 = time.perf_counter()
        got = jf(*dev)
        npcompile.synchronize()
        cold = time.perf_counter() - t0
        want = fn(*host)
        err = np.max(np.abs(got.get() - want)) / max(np.max(np.abs(want)), 1e-30)
        t_np = median_time(fn, host, lambda: None, max(3, opts.reps // 4))
        t_cp = median_time(lambda *a: fn(*a), cp_args, cupy.cuda.Device().synchronize, opts.reps)
        t_npc = median_time(jf, dev, npcompile.synchronize, opts.reps)
        print(f"{name:28s} {t_np * 1e3:9.3f}m {t_cp * 1e3:9.3f}m {t_npc * 1e3:9.3f}m "
              f"{t_cp / t_npc:8.2f}x {t_np / t_npc:7.1f}x {flops / t_npc / 1e12:8.1f} "
              f"{cold * 1e3:7.0f}m  rel.err {err:.1e}", flush=True)


if __name__ == "__main__":
    main()
