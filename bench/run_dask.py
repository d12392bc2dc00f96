"""npcompile on Dask (compiler/npcompile/api/dask_chunks.py) against plain dask.array, the
same programs on the same chunks, on a distributed.LocalCluster of 1, 2, 4, ... worker
processes of one thread each (the GPU machine's 16 cores: .ci/gpu-machine dask).

For each worker count: the machine's copy bandwidth with that many workers (x + 0 on the
same chunks: a read and a write of every byte), then each memory-bound seed workload as
plain Dask and as npcompile.jit over Dask, their inputs made and kept on the workers first
(only the computation is timed; results stay on the workers, reductions come back).
Reported per row: median seconds, npcompile / Dask, GB/s (the bytes the program must
read and write once), that as a share of the copy bandwidth, and the scaling over one
worker: raw, and as a share of how the copy bandwidth itself scaled (the target: 0.8 of
linear, relative to the machine's measured bandwidth). Cold (first-call) times apart.

    python bench/run_dask.py [--workers 1,2,4,8,16] [--size 200000000] [--reps 5] [--json F]
"""
import argparse
import json
import statistics
import time

import numpy as np

# the memory-bound seeds (../shared/bench/workloads.py), written for Dask arrays of the same
# layout: the functions are the seeds' own, their inputs chunked along the first axis
SEEDS = ("sincos", "mul", "mc_pi", "ga_constraint_fitness", "ga_fitness_sum")


def seed_functions():
    import os
    import sys
    here = os.path.dirname(os.path.abspath(__file__))
    for path in (os.environ.get("NPC_BENCH_DIR"), os.path.join(here, "..", "..", "shared", "bench")):
        if path and os.path.exists(os.path.join(path, "workloads.py")):
            sys.path.insert(0, path)
            break
    import workloads
    return workloads.WORKLOADS


def inputs(da, name, n, chunk_rows):
    """The seed's inputs as Dask arrays made on the workers (n: float64 elements each)."""
    rng = da.random.default_rng(0)
    if name == "sincos":
        return (rng.standard_normal(n, chunks=chunk_rows),)
    if name == "mul":
        side = int(n ** 0.5)
        shape, chunks = (side, side), (max(1, chunk_rows // side), side)
        return (rng.standard_normal(shape, chunks=chunks), rng.standard_normal(shape, chunks=chunks))
    if name == "mc_pi":
        return (rng.uniform(-1, 1, n, chunks=chunk_rows), rng.uniform(-1, 1, n, chunks=chunk_rows))
    if name == "ga_constraint_fitness":
        rows = n // 3
        return (rng.uniform(-25, 25, (rows, 3), chunks=(chunk_rows // 3, 3)),)
    if name == "ga_fitness_sum":   # int8: 8x the elements of the same bytes
        rows = n * 8 // 1000
        return (rng.integers(1, 25, (rows, 1000), chunks=(chunk_rows * 8 // 1000, 1000),
                             dtype=np.int8),)
    raise KeyError(name)


def bytes_moved(args, out):
    return sum(a.nbytes for a in args) + (out.nbytes if hasattr(out, "nbytes") else 0)


def _held(keys, dask_scheduler=None):
    return any(k in dask_scheduler.tasks for k in keys)


def timed(client, fn, args, reps, warmup=0):
    """(cold seconds, median warm seconds, result) of fn(*args) persisted on the workers,
    after `warmup` untimed runs past the first."""
    from distributed import wait

    def once():
        t0 = time.perf_counter()
        out = client.persist(fn(*args))
        wait(out)
        t = time.perf_counter() - t0
        # released, and forgotten by the scheduler, before the next run: the same keys
        # again would be found in memory (or cancelled with the old ones)
        keys = [f.key for f in client.futures_of(out)]
        del out
        deadline = time.time() + 10
        while time.time() < deadline and client.run_on_scheduler(_held, keys):
            time.sleep(0.01)
        return t
    cold = once()
    for _ in range(warmup):
        once()
    warm = [once() for _ in range(reps)]
    return cold, statistics.median(warm), fn(*args)


def run(opts):
    import dask.array as da
    from distributed import Client, LocalCluster, wait

    import npcompile
    seeds = seed_functions()
    rows = []
    base = {}
    for workers in opts.workers:
        # npcompile's own thread pool per worker (NPC_NUM_THREADS): one by default, as Dask
        # runs NumPy in its one thread per worker; all the cores each, and one worker
        # already ran 15x Dask's NumPy on sincos (its "scaling" then meant nothing)
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               dashboard_address=None, silence_logs=40, memory_limit=0,
                               env={"NPC_NUM_THREADS": str(opts.npc_threads)})
        client = Client(cluster)
        chunk = opts.chunk
        x = da.random.default_rng(1).standard_normal(opts.size, chunks=chunk).persist()
        wait(x)
        _, copy_s, _ = timed(client, lambda a: a + 0.0, (x,), opts.reps)
        copy_gbs = 2 * x.nbytes / copy_s / 1e9
        del x
        print(f"{workers:2d} workers: copy {copy_gbs:.1f} GB/s", flush=True)
        for name in opts.only or SEEDS:
            args = [a.persist() for a in inputs(da, name, opts.size, chunk)]
            wait(args)
            fn = seeds[name]
            jf = npcompile.jit(fn)
            dask_cold, dask_s, out = timed(client, fn, args, opts.reps)
            # warm: each worker's path choice has sampled both paths of each layer (about
            # seven chunks a worker; a run gives each worker chunks/workers of them)
            warmup = -(-7 * workers // max(1, len(args[0].chunks[0])))
            npc_cold, npc_s, _ = timed(client, jf, args, opts.reps, warmup)
            moved = bytes_moved(args, out)
            row = {"workers": workers, "program": name, "dask_s": dask_s, "npcompile_s": npc_s,
                   "speedup_vs_dask": dask_s / npc_s, "dask_cold_s": dask_cold,
                   "npcompile_cold_s": npc_cold, "gbs": moved / npc_s / 1e9,
                   "copy_gbs": copy_gbs, "of_copy_bw": moved / npc_s / 1e9 / copy_gbs}
            b = base.setdefault(name, (npc_s, copy_gbs))
            row["scaling"] = b[0] / npc_s
            row["scaling_of_bw"] = row["scaling"] / (copy_gbs / b[1])
            rows.append(row)
            print(f"   {name:22s} dask {dask_s * 1e3:8.1f} ms  npcompile {npc_s * 1e3:8.1f} ms "
                  f"({row['speedup_vs_dask']:.2f}x)  {row['gbs']:6.1f} GB/s "
                  f"({row['of_copy_bw'] * 100:3.0f}% of copy)  scaling {row['scaling']:.2f}x "
                  f"({row['scaling_of_bw'] * 100:.0f}% of the bandwidth's)  cold "
                  f"{npc_cold:.2f} s vs {dask_cold:.2f} s", flush=True)
            del args, out
        client.close()
        cluster.close()
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", default="1,2,4,8,16",
                    type=lambda s: [int(w) for w in s.split(",")])
    ap.add_argument("--size", type=int, default=200_000_000,
                    help="float64 elements per input (1.6 GB: far past any core's cache)")
    ap.add_argument("--chunk", type=int, default=4_000_000, help="elements per chunk")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--npc-threads", type=int, default=1,
                    help="npcompile's threads in each worker process (NPC_NUM_THREADS)")
    ap.add_argument("--only", type=lambda s: s.split(","), default=None)
    ap.add_argument("--json")
    opts = ap.parse_args()
    rows = run(opts)
    if opts.json:
        with open(opts.json, "w") as f:
            json.dump({"size": opts.size, "chunk": opts.chunk, "reps": opts.reps,
                       "npc_threads": opts.npc_threads, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
