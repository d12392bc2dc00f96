"""Seed workloads under NumPy, npcompile, Numba (parallel=True) and numexpr, in one run.

    /usr/bin/python3 bench/run.py [--scale 0.25] [--reps 5] [--only kmeans,mul] [--json out.json]

Per workload and dtype: median time, speedup over NumPy, cold first call (compile
included), achieved GB/s (input + output bytes / time) as a percentage of this
machine's copy bandwidth measured in the same run. Medians: shared machines are noisy."""
import argparse
import json
import os
import sys
import time
import warnings

import numpy as np

# 'cold' is a real compile: a fresh disk cache unless one is named (before the import:
# the JIT reads it once)
if not os.environ.get("NPC_CACHE_DIR"):
    import tempfile
    os.environ["NPC_CACHE_DIR"] = tempfile.mkdtemp(prefix="npc-bench-cache-")

import npcompile
from npcompile.api import path_choice

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.environ.get("NPC_BENCH_DIR") or os.path.join(HERE, "..", "..", "shared", "bench"))
from workloads import WORKLOADS, make_inputs  # noqa: E402
from timing import median_of  # noqa: E402  (bench/, this script's own folder)

NUMEXPR = {
    "sincos": lambda ne, x: ne.evaluate("sin(x) + cos(x)"),
    "mul": lambda ne, a, b: ne.evaluate("a * b"),
    "ga_constraint_fitness": lambda ne, s: _ne_constraint(ne, s),
}


def _ne_constraint(ne, s):
    x, y, z = s[:, 0], s[:, 1], s[:, 2]
    return ne.evaluate("where((x >= 1) & (y > 3) & (y <= 7) & (z < 0) & ((x + y + z) >= 3) & "
                       "((x**2 + z**2) <= 10), -(x**2 + 2*y**2 + 3*z**2 + 4*x*y - 5*y*z), inf)",
                       local_dict={"x": x, "y": y, "z": z, "inf": np.inf})


def copy_bandwidth():
    """Copy bandwidth of this machine (read + write), all cores through npcompile."""
    a = np.ones(1 << 25)
    mul1 = npcompile.jit(lambda x: x * 1.0)
    mul1(a)
    t = min(median_of(lambda: mul1(a), 1) for _ in range(5))
    t1 = min(median_of(lambda: a.copy(), 1) for _ in range(5))
    return 2 * a.nbytes / t / 1e9, 2 * a.nbytes / t1 / 1e9


def bytes_moved(args, out):
    return sum(np.asarray(a).nbytes for a in args) + np.asarray(out).nbytes


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", type=float, default=float(os.environ.get("NPC_BENCH_SCALE", "0.25")))
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--only", default="")
    ap.add_argument("--json", default="")
    opts = ap.parse_args()
    warnings.simplefilter("ignore")
    names = opts.only.split(",") if opts.only else list(WORKLOADS)
    bw, bw1 = copy_bandwidth()
    try:
        import numba
        nthreads = numba.config.NUMBA_NUM_THREADS
    except Exception:
        numba = None
        nthreads = os.cpu_count()
    try:
        import numexpr as ne
    except Exception:
        ne = None
    print(f"npcompile {npcompile.__version__}, NumPy {np.__version__}, {os.cpu_count()} cores, "
          f"scale {opts.scale}; copy bandwidth {bw:.1f} GB/s (npcompile, all cores), "
          f"{bw1:.1f} GB/s (NumPy copy)")
    hdr = (f"{'workload':24s} {'dtype':8s} {'NumPy':>9s} {'npcompile':>10s} {'x NumPy':>8s} "
           f"{'cold':>8s} {'GB/s':>6s} {'%copy':>6s} {'Numba':>9s} {'numexpr':>9s}")
    print(hdr)
    print("-" * len(hdr))
    rows = []
    for name in names:
        dts = ["int8"] if name == "ga_fitness_sum" else ["float32", "float64"]
        for dt in dts:
            fn = WORKLOADS[name]
            args = make_inputs(name, np.dtype(dt) if dt != "int8" else np.float64, scale=opts.scale)
            row = {"workload": name, "dtype": dt}
            t_np = median_of(lambda: fn(*args), opts.reps)
            npcompile.reset()
            jf = npcompile.jit(fn)
            t0 = time.perf_counter()
            out = jf(*args)
            row["cold_s"] = time.perf_counter() - t0
            # past the path choice's sampling calls (api/path_choice.py): steady state
            for _ in range(2 * path_choice.SAMPLES):
                jf(*args)
            t_npc = median_of(lambda: jf(*args), opts.reps)
            row["path"] = next((c["choice"] for c in reversed(npcompile.report()["path_choices"])),
                               "compiled")
            rep = npcompile.report()
            compiled_calls = 1 + path_choice.SAMPLES + (opts.reps if row["path"] == "compiled" else 0)
            row["kernels"] = len(rep["kernels"]) // compiled_calls
            row["target"] = rep["compiles"][0]["target"] if rep["compiles"] else "?"
            row.update(numpy_s=t_np, npcompile_s=t_npc, speedup=t_np / t_npc)
            gbs = bytes_moved(args, out) / t_npc / 1e9
            row.update(gbps=gbs, pct_copy=100 * gbs / bw)
            row["numba_s"] = None
            if numba is not None:
                try:
                    nf = numba.njit(parallel=True)(fn)
                    nf(*args)
                    row["numba_s"] = median_of(lambda: nf(*args), opts.reps)
                except Exception:
                    pass
            row["numexpr_s"] = None
            if ne is not None and name in NUMEXPR:
                row["numexpr_s"] = median_of(lambda: NUMEXPR[name](ne, *args), opts.reps)
            rows.append(row)

            def ms(v):
                return f"{v * 1e3:8.2f}ms" if v else "      n/a"
            print(f"{name:24s} {dt:8s} {ms(t_np)} {ms(t_npc):>10s} {row['speedup']:7.1f}x "
                  f"{row['cold_s'] * 1e3:6.0f}ms {gbs:6.1f} {row['pct_copy']:5.0f}% "
                  f"{ms(row['numba_s'])} {ms(row['numexpr_s'])}", flush=True)
    geo = float(np.exp(np.mean([np.log(r["speedup"]) for r in rows])))
    print(f"geomean speedup over NumPy: {geo:.1f}x; slowest: "
          f"{min(rows, key=lambda r: r['speedup'])['workload']} "
          f"({min(r['speedup'] for r in rows):.2f}x)")
    if opts.json:
        with open(opts.json, "w") as f:
            json.dump({"copy_GBps": bw, "rows": rows, "geomean": geo, "scale": opts.scale,
                       "numba_threads": nthreads}, f, indent=1)


if __name__ == "__main__":
    main()
