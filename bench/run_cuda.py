"""Seed workloads on the GPU, data resident on the device, in one run: npcompile
(device="cuda"), JAX jit and CuPy (eager), with NumPy on the host as the baseline.

    python bench/run_cuda.py [--scale 1.0] [--reps 10] [--only kmeans,mul] [--json out.json]

Per workload and dtype: median time (after the first call), speedup over NumPy and the
ratio to JAX (>1: npcompile faster), cold first call (compile included), achieved GB/s
(input + output bytes / time) as a percentage of the device-copy bandwidth measured in
the same run. Results are checked against NumPy's before any time is reported."""
import argparse
import json
import os
import statistics
import sys
import time
import warnings

import numpy as np

import npcompile
from npcompile.backends import cuda_runtime

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.environ.get("NPC_BENCH_DIR") or os.path.join(HERE, "..", "..", "shared", "bench"))
import workloads  # noqa: E402
from workloads import WORKLOADS, make_inputs  # noqa: E402


def timeit(fn, sync, reps):
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        sync()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def cold(fn, sync):
    t0 = time.perf_counter()
    r = fn()
    sync()
    return r, time.perf_counter() - t0


def close(got, exp):
    """Same shape and dtype, values within a few units of rounding of the largest."""
    if got.shape != exp.shape or got.dtype != exp.dtype:
        return False
    if exp.dtype.kind != "f":
        return bool(np.array_equal(got, exp))
    eps = np.finfo(exp.dtype).eps
    scale = float(np.nanmax(np.abs(exp))) if exp.size else 1.0
    return bool(np.allclose(got, exp, rtol=64 * eps, atol=1024 * eps * max(scale, 1.0), equal_nan=True))


def as_accurate(got, exp, fn, args):
    """Sums with cancellation (normalize_outer) differ from NumPy's by more than rounding
    because NumPy's float sums are the less accurate ones: accept a result at least as
    close as NumPy's to the same function evaluated in extended precision."""
    if exp.dtype.kind != "f" or got.shape != exp.shape:
        return False
    with np.errstate(all="ignore"):
        ref = np.asarray(fn(*[a.astype(np.longdouble) if a.dtype.kind == "f" else a for a in args]))
    err_got = np.max(np.abs(got.astype(np.longdouble) - ref))
    err_np = np.max(np.abs(exp.astype(np.longdouble) - ref))
    return bool(err_got <= 2 * err_np + 8 * np.finfo(exp.dtype).eps * np.max(np.abs(ref)))


def device_copy_gbs(n_bytes=1 << 30):
    """Device-to-device copy bandwidth (read + write bytes per second) with our own pool."""
    cu = cuda_runtime.native()
    a, b = cu.Buffer(n_bytes), cu.Buffer(n_bytes)
    cu.copy(b, 0, a, 0, n_bytes)
    cu.synchronize()
    t = timeit(lambda: cu.copy(b, 0, a, 0, n_bytes), cu.synchronize, 10)
    return 2 * n_bytes / t / 1e9


def with_module(mod, fn):
    """Run a seed function with `np` inside workloads.py bound to another array module."""
    def run(*args):
        saved = workloads.np
        workloads.np = mod
        try:
            return fn(*args)
        finally:
            workloads.np = saved
    return run


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--numpy-reps", type=int, default=3)
    ap.add_argument("--only", default="")
    ap.add_argument("--json", default="")
    ap.add_argument("--no-peers", action="store_true")
    opts = ap.parse_args()
    ok, why = cuda_runtime.available()
    if not ok:
        sys.exit(f"bench/run_cuda.py: no GPU here: {why}")
    info = cuda_runtime.device_info()
    cu = cuda_runtime.native()
    copy_bw = device_copy_gbs()
    print(f"{info['name']} ({info['arch']}, {info['multiprocessors']} SMs); device copy "
          f"{copy_bw:.0f} GB/s; scale {opts.scale}; medians of {opts.reps}")
    jax = jnp = cp = None
    if not opts.no_peers:
        try:
            import jax
            import jax.numpy as jnp
            jax.config.update("jax_enable_x64", True)
        except Exception as e:
            print(f"JAX unavailable: {e}")
        try:
            import cupy as cp
        except Exception as e:
            print(f"CuPy unavailable: {e}")
    only = set(filter(None, opts.only.split(",")))
    rows = []
    for name, fn in WORKLOADS.items():
        if only and name not in only:
            continue
        for dt in (["int8"] if name == "ga_fitness_sum" else ["float32", "float64"]):
            args = make_inputs(name, np.dtype(dt), scale=opts.scale)
            row = {"workload": name, "dtype": dt}
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                expected = fn(*args)
                row["numpy_s"] = timeit(lambda: fn(*args), lambda: None, opts.numpy_reps)
                dargs = [npcompile.to_device(a) for a in args]
                f = npcompile.jit(fn, device="cuda")
                try:
                    got, row["npc_cold_s"] = cold(lambda: f(*dargs), cu.synchronize)
                    g = np.asarray(got)
                    e = np.asarray(expected)
                    row["correct"] = close(g, e) or as_accurate(g, e, fn, args)
                    npcompile.reset()
                    row["npc_s"] = timeit(lambda: f(*dargs), cu.synchronize, opts.reps)
                    # the kernels alone (CUDA events): the rest of npc_s is the call overhead
                    # per call: the sum of its kernels (a median of single kernels would
                    # hide one long kernel among short ones); the median of those sums
                    ks = [k["wall_ms"] for k in npcompile.report()["kernels"] if k["target"] == "cuda"]
                    per = len(ks) // opts.reps
                    row["kernels_per_call"] = per
                    row["kernel_s"] = statistics.median(
                        sum(ks[i * per:(i + 1) * per]) for i in range(opts.reps)) * 1e-3 if per else None
                    # the same calls traced every time (replay off): what replay saves
                    ft = npcompile.jit(fn, device="cuda", replay=False)
                    ft(*dargs)
                    row["npc_traced_s"] = timeit(lambda: ft(*dargs), cu.synchronize, opts.reps)
                except Exception as ex:
                    row["error"] = f"{type(ex).__name__}: {str(ex)[:300]}"
                moved = sum(a.nbytes for a in args) + np.asarray(expected).nbytes
                if "npc_s" in row:
                    row["gbs"] = moved / row["npc_s"] / 1e9
                    row["roofline_pct"] = 100 * row["gbs"] / copy_bw
                    if row.get("kernel_s"):  # the kernels alone, without the call overhead
                        row["kernel_roofline_pct"] = 100 * moved / row["kernel_s"] / 1e9 / copy_bw
                if jax is not None:
                    try:
                        jf = jax.jit(with_module(jnp, fn))
                        jargs = [jax.device_put(a) for a in args]
                        _, row["jax_cold_s"] = cold(lambda: jax.block_until_ready(jf(*jargs)), lambda: None)
                        row["jax_s"] = timeit(lambda: jax.block_until_ready(jf(*jargs)), lambda: None, opts.reps)
                    except Exception as ex:
                        row["jax_error"] = f"{type(ex).__name__}: {str(ex)[:200]}"
                if cp is not None:
                    try:
                        cf = with_module(cp, fn)
                        cargs = [cp.asarray(a) for a in args]
                        sync = cp.cuda.Device().synchronize
                        cold(lambda: cf(*cargs), sync)
                        row["cupy_s"] = timeit(lambda: cf(*cargs), sync, opts.reps)
                    except Exception as ex:
                        row["cupy_error"] = f"{type(ex).__name__}: {str(ex)[:200]}"
            rows.append(row)
            print(_line(row), flush=True)
    ratios = [r["jax_s"] / r["npc_s"] for r in rows if "jax_s" in r and "npc_s" in r]
    if ratios:
        geo = float(np.exp(np.mean(np.log(ratios))))
        print(f"geomean ratio JAX time / npcompile time: {geo:.2f} over {len(ratios)} rows")
    if opts.json:
        with open(opts.json, "w") as fh:
            json.dump({"device": info, "copy_gbs": copy_bw, "rows": rows}, fh, indent=1)


def _ms(v):
    return f"{v * 1e3:8.3f}" if v is not None else "     n/a"


def _line(r):
    npc = r.get("npc_s")
    parts = [f"{r['workload']:22s} {r['dtype']:8s}", f"numpy {_ms(r.get('numpy_s'))} ms",
             f"npc {_ms(npc)} ms"]
    if npc:
        parts.append(f"x{r['numpy_s'] / npc:8.1f} vs NumPy")
        if r.get("npc_traced_s"):
            parts.append(f"traced {_ms(r['npc_traced_s'])} ms")
        parts.append(f"{r['roofline_pct']:5.1f}% copy BW")
        parts.append(f"cold {r['npc_cold_s'] * 1e3:7.1f} ms")
        if r.get("kernel_s"):
            parts.append(f"kernels {r['kernel_s'] * 1e3:7.3f} ms ({r['kernel_roofline_pct']:5.1f}% BW)")
        parts.append("ok" if r.get("correct") else "WRONG")
    if "jax_s" in r:
        parts.append(f"jax {_ms(r['jax_s'])} ms" + (f" (npc {r['jax_s'] / npc:5.2f}x)" if npc else ""))
    if "cupy_s" in r:
        parts.append(f"cupy {_ms(r['cupy_s'])} ms")
    for k in ("error", "jax_error", "cupy_error"):
        if k in r:
            parts.append(f"{k}: {r[k]}")
    return " | ".join(parts)


if __name__ == "__main__":
    main()
