"""npcompile's CPU backend against torch.compile's CPU backend (Inductor) and eager NumPy,
on the seed workloads (../shared/bench/workloads.py) and the program corpus
(bench/programs), in one run: the GPU machine's 16 cores (.ci/gpu-machine cpu16).

    python bench/run_cpu16.py [--scale 0.25] [--reps 5] [--size small] [--only-seed a,b]
        [--only-programs a,b] [--no-seed] [--no-programs] [--torch-timeout 15] [--budget S]
        [--json out.json] [--md out.md] [--resume earlier.json]

Each system runs in processes of its own, one after the other (never two thread pools
at once):
  seed, npcompile   one process: per workload and dtype, eager NumPy (median of --reps),
                    npcompile.jit's first call (fresh disk cache, so a real compile) and,
                    after the path choice's sampling calls, the median of --reps calls
                    (as bench/run.py; values checked against NumPy's, float32 to rtol 1e-3)
  programs, npc     bench/run_programs.py --stat median --no-numba --no-x4 (a process per
                    program, fresh disk cache; its 'cold' includes npcompile's start there)
  torch.compile     one process for the seed workloads and then the programs (its start
                    costs a minute there, so it is paid once): torch.compile(fn) of the same
                    NumPy function on the same inputs (Dynamo traces NumPy through
                    torch._numpy); first call, settling calls (1 for seeds, 4 for programs, as
                    run_programs), median of --reps; programs' values checked as run_programs
                    checks npcompile's (its compare(), Python scalars allowed). A first call
                    past --torch-timeout is stopped (an exception raised in it) and recorded
                    as 'timeout'; past --budget seconds from the start no more programs start
                    ('skipped'): a later `--resume that.json` runs only those, in another call.
Both compilers get one warm-up compile of an unrelated function first ('init': LLVM's and
Inductor's one-time start), reported apart. Inductor gets an empty cache directory of this
run (no FX graph cache hits from earlier runs). Threads: NPC_NUM_THREADS, OMP_NUM_THREADS
and torch.set_num_threads from --threads (default 16).
Ratios: x NumPy = NumPy time / system time; npc/torch = torch time / npcompile time (>1:
npcompile faster); geomeans over the rows where both values exist and are right.
"""
import argparse
import copy
import datetime
import json
import math
import os
import platform
import queue
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
MARK = "@@ROW "
SEED_DIR = os.environ.get("NPC_BENCH_DIR") or os.path.join(HERE, "..", "..", "shared", "bench")
sys.path.insert(0, SEED_DIR)
sys.path.insert(0, HERE)
from timing import median_of  # noqa: E402


def emit(row):
    print(MARK + json.dumps(row, default=str), flush=True)


def seed_cases(only):
    from workloads import WORKLOADS
    names = only.split(",") if only else list(WORKLOADS)
    return [(n, dt) for n in names for dt in (["int8"] if n == "ga_fitness_sum" else ["float32", "float64"])]


def seed_inputs(name, dt, scale):
    import numpy as np
    from workloads import make_inputs
    return make_inputs(name, np.dtype(dt) if dt != "int8" else np.float64, scale=scale)


def same(ref, out):
    """'ok' when out holds ref's values (float32: rtol 1e-3, reductions of 10^5 terms
    round differently in any order), else a short reason."""
    import numpy as np
    r, g = np.asarray(ref), np.asarray(out)
    if r.shape != g.shape:
        return f"shape {g.shape} instead of {r.shape}"
    if r.dtype.kind in "fc":
        rtol, atol = (1e-3, 1e-5) if r.dtype.itemsize <= 4 else (1e-6, 1e-8)
        bad = ~np.isclose(g, r, rtol=rtol, atol=atol, equal_nan=True)
    else:
        bad = g != r
    n = int(np.sum(bad))
    return "ok" if n == 0 else f"values differ ({n} of {r.size})"


# ----------------------------------------------------------------------------- workers

def worker_seed_npc(opts):
    warnings.simplefilter("ignore")
    import numpy as np
    import npcompile
    from npcompile.api import path_choice
    t0 = time.perf_counter()
    w = npcompile.jit(lambda x: np.sqrt(x) * 3.0 + 1.0)
    w(np.ones(1000))
    emit({"kind": "init", "npc_init_s": time.perf_counter() - t0, "npcompile": npcompile.__version__,
          "numpy": np.__version__})
    # copy bandwidth (read + write), as bench/run.py measures it
    a = np.ones(1 << 25)
    m1 = npcompile.jit(lambda x: x * 1.0)
    m1(a)
    t = min(median_of(lambda: m1(a), 1) for _ in range(5))
    t1 = min(median_of(lambda: a.copy(), 1) for _ in range(5))
    emit({"kind": "bandwidth", "npc_copy_GBps": 2 * a.nbytes / t / 1e9, "numpy_copy_GBps": 2 * a.nbytes / t1 / 1e9})
    del a
    from workloads import WORKLOADS
    for name, dt in seed_cases(opts.only_seed):
        fn = WORKLOADS[name]
        args = seed_inputs(name, dt, opts.scale)
        row = {"kind": "seed", "workload": name, "dtype": dt}
        ref = fn(*args)
        row["numpy_s"] = median_of(lambda: fn(*args), opts.reps)
        try:
            npcompile.reset()
            jf = npcompile.jit(fn)
            t0 = time.perf_counter()
            out = jf(*args)
            row["npc_cold_s"] = time.perf_counter() - t0
            row["npc_check"] = same(ref, out)
            for _ in range(2 * path_choice.SAMPLES):  # past the path choice's sampling calls
                jf(*args)
            row["npc_s"] = median_of(lambda: jf(*args), opts.reps)
            rep = npcompile.report()
            row["npc_path"] = next((c["choice"] for c in reversed(rep["path_choices"])), "compiled")
            row["npc_target"] = rep["compiles"][0]["target"] if rep["compiles"] else "?"
            row["npc_compile_ms"] = sum(c.get("total_ms", 0.0) for c in rep["compiles"])
        except Exception as e:
            row["npc_error"] = f"{type(e).__name__}: {str(e)[:300]}"
        emit(row)


class TimeLimit(BaseException):
    """Raised by SIGALRM inside a torch.compile call: a BaseException, so that no
    `except Exception` in Dynamo turns it into a graph break."""


def _alarm(signum, frame):
    raise TimeLimit()


def limited(seconds, fn, *args):
    signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return fn(*args)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def worker_torch(opts):
    """Reads jobs from stdin, one JSON a line ({"seed": [name, dtype]} or {"program": name});
    prints one row each."""
    warnings.simplefilter("ignore")
    import numpy as np
    import torch
    torch.set_num_threads(opts.threads)
    from torch._dynamo.utils import counters
    import run_programs as rp
    rp.STAT[0] = statistics.median
    t0 = time.perf_counter()
    c = torch.compile(lambda x: np.sqrt(x) * 3.0 + 1.0)
    c(np.ones(1000))
    torch._dynamo.reset()
    emit({"kind": "init", "torch_init_s": time.perf_counter() - t0, "torch": torch.__version__,
          "torch_threads": torch.get_num_threads()})
    from workloads import WORKLOADS

    def stats():
        return {"torch_graphs": int(counters["stats"].get("unique_graphs", 0)),
                "torch_breaks": int(sum(counters["graph_break"].values()))}

    for line in sys.stdin:
        if not line.strip():
            continue
        job = json.loads(line)
        torch._dynamo.reset()
        counters.clear()
        if "seed" in job:
            name, dt = job["seed"]
            row = {"kind": "seed", "workload": name, "dtype": dt}
            fn = WORKLOADS[name]
            args = seed_inputs(name, dt, opts.scale)
            ref = fn(*args)
            try:
                c = torch.compile(fn)
                t0 = time.perf_counter()
                out = limited(opts.torch_timeout, c, *args)
                row["torch_first_s"] = time.perf_counter() - t0
                row["torch_check"] = same(ref, out)
                if row["torch_first_s"] > opts.torch_timeout:  # the limit swallowed inside torch
                    raise TimeLimit()
                limited(opts.torch_timeout, c, *args)
                row["torch_s"] = median_of(lambda: c(*args), opts.reps)
                row.update(stats())
            except TimeLimit:
                row["torch_check"] = "timeout"
                row["torch_error"] = f"first call not done in {opts.torch_timeout:.0f} s"
                row.pop("torch_first_s", None)
            except Exception as e:
                row["torch_check"] = "error"
                row["torch_error"] = f"{type(e).__name__}: {' '.join(str(e).split())[:300]}"
            emit(row)
            continue
        name = job["program"]
        row = {"kind": "program", "program": name}
        try:
            mod = rp.load_program(name)
            inputs = mod.make_inputs(opts.size)

            def fresh():
                return copy.deepcopy(inputs)
            ref_args = fresh()
            ref = mod.run(*ref_args)
            row["torch_numpy_s"] = rp.median_time(mod.run, fresh, opts.reps)
            c = torch.compile(mod.run)
            args = fresh()
            t0 = time.perf_counter()
            out = limited(opts.torch_timeout, c, *args)
            row["torch_first_s"] = time.perf_counter() - t0
            if row["torch_first_s"] > opts.torch_timeout:  # the limit swallowed inside torch
                raise TimeLimit()
            diff = rp.compare(ref, out, strict_type=False) or rp.compare(ref_args, args, "inputs after the call")
            row["torch_status"] = "ok" if diff is None else rp.classify(diff)
            if diff:
                row["torch_mismatch"] = rp.short(diff, 300)

            def settle():
                for _ in range(rp.settle_calls()):
                    c(*fresh())
            limited(2 * opts.torch_timeout, settle)
            row["torch_s"] = rp.median_time(c, fresh, opts.reps)
            row.update(stats())
            if row["torch_status"] == "ok":
                args = fresh()
                out = c(*args)
                diff = rp.compare(ref, out, strict_type=False) or rp.compare(ref_args, args, "inputs after the call")
                if diff:
                    row["torch_status"] = rp.classify(diff)
                    row["torch_mismatch"] = "warm call: " + rp.short(diff, 300)
        except TimeLimit:
            row["torch_status"] = "timeout"
            first = row.pop("torch_first_s", None)
            row["torch_error"] = (f"settling calls not done in {2 * opts.torch_timeout:.0f} s (recompiles)"
                                  if first is not None and first <= opts.torch_timeout
                                  else f"first call not done in {opts.torch_timeout:.0f} s")
        except Exception as e:
            row["torch_status"] = "error"
            row["torch_error"] = f"{type(e).__name__}: {' '.join(str(e).split())[:300]}"
        emit(row)


# ----------------------------------------------------------------------------- parent

def spawn(args, env, stdin=None):
    return subprocess.Popen([sys.executable, os.path.abspath(__file__)] + args, stdout=subprocess.PIPE,
                            stdin=stdin, stderr=subprocess.STDOUT, text=True, env=env,
                            start_new_session=True)


def reader(proc, q):
    for line in proc.stdout:
        q.put(line)
    q.put(None)


def brief(r):
    return " ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in r.items()
                    if k not in ("kind",) and not isinstance(v, (list, dict)))[:240]


def worker_args(opts):
    a = ["--scale", str(opts.scale), "--reps", str(opts.reps), "--size", opts.size,
         "--threads", str(opts.threads), "--torch-timeout", str(opts.torch_timeout)]
    if opts.only_seed:
        a += ["--only-seed", opts.only_seed]
    return a


def run_seed_npc(opts, env, log):
    log("seed workloads, npcompile + NumPy:")
    proc = spawn(["--worker", "seed-npc"] + worker_args(opts), env)
    q = queue.Queue()
    threading.Thread(target=reader, args=(proc, q), daemon=True).start()
    rows, end = [], time.monotonic() + opts.seed_timeout
    while True:
        try:
            line = q.get(timeout=max(0.1, end - time.monotonic()))
        except queue.Empty:
            os.killpg(proc.pid, signal.SIGKILL)
            log("  (worker killed: past --seed-timeout)")
            break
        if line is None:
            break
        if line.startswith(MARK):
            rows.append(json.loads(line[len(MARK):]))
            log("  " + brief(rows[-1]))
        elif line.strip():
            log("  | " + line.rstrip()[:200])
    proc.wait()
    return rows


def run_programs_npc(opts, env, log, names):
    log("programs, npcompile (bench/run_programs.py):")
    out = tempfile.mktemp(suffix=".json")
    cmd = [sys.executable, os.path.join(HERE, "run_programs.py"), "--size", opts.size, "--reps", str(opts.reps),
           "--stat", "median", "--no-numba", "--no-x4", "--timeout-per-program", str(opts.npc_timeout),
           "--json", out, "--only", ",".join(names)]
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for line in p.stdout.splitlines():
        log("  | " + line[:220])
    try:
        with open(out) as f:
            return json.load(f)
    except Exception as e:
        log(f"  no JSON from run_programs.py: {e}")
        return {"rows": []}


class TorchRunner:
    """The torch worker process: jobs one at a time, a hard time limit on each (the worker
    stops a slow first call itself; this is the backstop), a new worker after a kill."""

    def __init__(self, opts, env, log):
        self.opts, self.env, self.log = opts, env, log
        self.proc = None
        self.init = {}

    def run(self, job, limit):
        fresh = self.proc is None
        if fresh:
            self.proc = spawn(["--worker", "torch"] + worker_args(self.opts), self.env, stdin=subprocess.PIPE)
            self.q = queue.Queue()
            threading.Thread(target=reader, args=(self.proc, self.q), daemon=True).start()
        t0 = time.monotonic()
        end = t0 + limit + (self.opts.torch_init_timeout if fresh else 0)
        try:
            self.proc.stdin.write(json.dumps(job) + "\n")
            self.proc.stdin.flush()
        except OSError:
            pass
        eof = False
        while True:
            try:
                line = self.q.get(timeout=max(0.1, end - time.monotonic()))
            except queue.Empty:
                break
            if line is None:
                eof = True
                break
            if line.startswith(MARK):
                r = json.loads(line[len(MARK):])
                if r["kind"] == "init":
                    self.init = self.init or r
                    self.log("  " + brief(r))
                    continue
                r.pop("kind", None)
                r["torch_wall_s"] = time.monotonic() - t0
                self.log("  " + brief(r))
                return r
            elif line.strip():
                self.log("  | " + line.rstrip()[:200])
        alive = not eof and self.proc.poll() is None
        if alive:
            os.killpg(self.proc.pid, signal.SIGKILL)
        rc = self.proc.wait()
        self.proc = None
        why = (f"no result after {time.monotonic() - t0:.0f} s (worker killed)" if alive
               else f"worker exited with {rc}")
        self.log(f"  {job}: {why}")
        return {"torch_status": "timeout" if alive else "crash", "torch_check": "timeout" if alive else "crash",
                "torch_error": why, "torch_wall_s": time.monotonic() - t0}

    def close(self):
        if self.proc is not None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)


def geomean(vals):
    vals = [v for v in vals if v and v > 0 and math.isfinite(v)]
    return math.exp(sum(math.log(v) for v in vals) / len(vals)) if vals else None


def ratio(a, b):
    return a / b if a and b else None


def cpu_info():
    model = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {"cpu": model, "cores": os.cpu_count(), "affinity": len(os.sched_getaffinity(0)),
            "python": platform.python_version()}


def _ratios(r, ok_n, ok_t, npc_key, npc_cold_key):
    """A row's ratios against NumPy and between the two, where their values were right."""
    r["npc_x_numpy"] = ratio(r.get("numpy_s"), r.get(npc_key)) if ok_n else None
    r["torch_x_numpy"] = ratio(r.get("numpy_s"), r.get("torch_s")) if ok_t else None
    r["npc_over_torch"] = ratio(r.get("torch_s"), r.get(npc_key)) if ok_n and ok_t else None
    r["cold_npc_over_torch"] = ratio(r.get("torch_first_s"), r.get(npc_cold_key)) \
        if ok_n and ok_t else None


def finish(result):
    """Ratios and geomeans from the rows (again after a --resume)."""
    sd = result.get("seed")
    if sd:
        rows = sd["rows"]
        for r in rows:
            _ratios(r, r.get("npc_check") == "ok", r.get("torch_check") == "ok", "npc_s", "npc_cold_s")
        sd["geomean"] = {k: geomean([r[k] for r in rows]) for k in
                         ("npc_x_numpy", "torch_x_numpy", "npc_over_torch", "cold_npc_over_torch")}
        sd["geomean_cold_s"] = {"npc": geomean([r.get("npc_cold_s") for r in rows if r.get("npc_check") == "ok"]),
                                "torch": geomean([r.get("torch_first_s") for r in rows
                                                  if r.get("torch_check") == "ok"])}
    pg = result.get("programs")
    if pg:
        rows = pg["rows"]
        for r in rows:
            ok_n, ok_t = r.get("status") == "ok", r.get("torch_status") == "ok"
            _ratios(r, ok_n, ok_t, "warm_s", "cold_s")
            # NumPy itself runs at different speeds in run_programs' fresh process per program
            # and in torch's long-lived one (the allocator's state: page faults of fresh
            # memory): each system against the NumPy of its own process, then the two ratios
            r["torch_x_numpy_same_process"] = ratio(r.get("torch_numpy_s"), r.get("torch_s")) if ok_t else None
            r["npc_over_torch_same_process"] = (ratio(r["npc_x_numpy"], r["torch_x_numpy_same_process"])
                                                if ok_n and ok_t else None)
        count = {"npc_ok": sum(r.get("status") == "ok" for r in rows),
                 "torch_ok": sum(r.get("torch_status") == "ok" for r in rows),
                 "both_ok": sum(r.get("npc_over_torch") is not None for r in rows)}
        for st in ("timeout", "error", "crash", "skipped", "WRONG", "type", "dtype", "shape"):
            count[f"torch_{st}"] = sum(r.get("torch_status") == st for r in rows)
        pg["count"] = count
        pg["geomean"] = {k: geomean([r[k] for r in rows]) for k in
                         ("npc_x_numpy", "torch_x_numpy", "npc_over_torch", "cold_npc_over_torch",
                          "torch_x_numpy_same_process", "npc_over_torch_same_process")}
        pg["geomean_numpy_here_over_torch_process"] = geomean(
            [ratio(r.get("numpy_s"), r.get("torch_numpy_s")) for r in rows])
        pg["geomean_cold_s"] = {"npc": geomean([r.get("cold_s") for r in rows if r.get("status") == "ok"]),
                                "torch": geomean([r.get("torch_first_s") for r in rows
                                                  if r.get("torch_status") == "ok"])}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scale", type=float, default=0.25, help="seed input scale (bench/run.py's default)")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--size", default="small", choices=["small", "medium"])
    ap.add_argument("--threads", type=int, default=int(os.environ.get("NPC_NUM_THREADS", "16")))
    ap.add_argument("--only-seed", default="")
    ap.add_argument("--only-programs", default="")
    ap.add_argument("--no-seed", action="store_true")
    ap.add_argument("--no-programs", action="store_true")
    ap.add_argument("--seed-timeout", type=float, default=300.0, help="for npcompile's seed process (s)")
    ap.add_argument("--npc-timeout", type=float, default=60.0, help="per program, npcompile (s)")
    ap.add_argument("--torch-timeout", type=float, default=12.0,
                    help="torch.compile's first call, per workload or program (s)")
    ap.add_argument("--torch-init-timeout", type=float, default=240.0,
                    help="more time for a torch worker's start (s)")
    ap.add_argument("--budget", type=float, default=0.0,
                    help="seconds from the start after which no more programs start under torch (0: none)")
    ap.add_argument("--resume", default="", help="an earlier JSON: run torch.compile on its skipped programs only")
    ap.add_argument("--json", default="")
    ap.add_argument("--md", default="")
    ap.add_argument("--worker", default="", help=argparse.SUPPRESS)
    opts = ap.parse_args()
    if opts.worker:
        return {"seed-npc": worker_seed_npc, "torch": worker_torch}[opts.worker](opts)

    start = time.monotonic()

    def log(s):
        print(f"[{time.monotonic() - start:6.1f}s] {s}", flush=True)

    cache_root = tempfile.mkdtemp(prefix="npc-cpu16-")
    env = dict(os.environ, NPC_NUM_THREADS=str(opts.threads), OMP_NUM_THREADS=str(opts.threads))
    env_npc = dict(env, NPC_CACHE_DIR=os.path.join(cache_root, "npc"))
    env_torch = dict(env, TORCHINDUCTOR_CACHE_DIR=os.path.join(cache_root, "inductor"))
    torch = TorchRunner(opts, env_torch, log)
    deadline = start + opts.budget if opts.budget else float("inf")
    def torch_limit():  # the backstop per job (the worker stops itself first)
        return 3 * opts.torch_timeout + 30

    def torch_programs(rows, result):
        for r in rows:  # a call stopped half-way leaves the rest to --resume
            for k in [k for k in r if k.startswith("torch_")]:
                del r[k]
            r.update(torch_status="skipped", torch_error="not run: the call's time budget was spent")
        for r in rows:
            if time.monotonic() > deadline:
                r.update(torch_status="skipped", torch_error="not run: the call's time budget was spent")
                continue
            for k in [k for k in r if k.startswith("torch_")]:
                del r[k]
            t = torch.run({"program": r["program"]}, torch_limit())
            t.pop("program", None)
            r.pop("torch_error", None)
            r.update(t)
            finish(result)
            write(result, opts)

    if opts.resume:
        with open(opts.resume) as f:
            result = json.load(f)
        # the first call's settings; torch's worker reads them from opts
        opts.threads, opts.reps, opts.size = result["threads"], result["reps"], result["size"]
        opts.torch_timeout = result.get("torch_timeout_s", opts.torch_timeout)
        torch.env.update(NPC_NUM_THREADS=str(opts.threads), OMP_NUM_THREADS=str(opts.threads))
        rows = [r for r in result.get("programs", {}).get("rows", []) if r.get("torch_status") == "skipped"]
        log(f"resuming {opts.resume}: {len(rows)} programs not yet run under torch.compile")
        if rows:
            log("programs, torch.compile:")
            torch_programs(rows, result)
            result["programs"]["resumed"] = {"programs": [r["program"] for r in rows],
                                             "torch_init_s": torch.init.get("torch_init_s"),
                                             "wall_s": time.monotonic() - start}
        torch.close()
        finish(result)
        write(result, opts)
        log(f"done in {time.monotonic() - start:.0f} s")
        shutil.rmtree(cache_root, ignore_errors=True)
        return

    result = {"date": datetime.date.today().isoformat(), "machine": cpu_info(), "threads": opts.threads,
              "commit": os.environ.get("NPC_COMMIT", ""), "scale": opts.scale, "reps": opts.reps,
              "size": opts.size, "stat": "median", "torch_timeout_s": opts.torch_timeout, "versions": {}}
    log(f"{result['machine']}; {opts.threads} threads for npcompile and torch")
    import run_programs as rp
    names = rp.program_names()
    if opts.only_programs:
        names = [n.strip() for n in opts.only_programs.split(",") if n.strip()]

    # 1. npcompile (and NumPy): seeds, then the corpus
    if not opts.no_seed:
        meta = {}
        seed = {}
        for r in run_seed_npc(opts, env_npc, log):
            if r["kind"] == "seed":
                seed[(r["workload"], r["dtype"])] = {k: v for k, v in r.items() if k != "kind"}
            else:
                meta.update({k: v for k, v in r.items() if k != "kind"})
        result["versions"].update(npcompile=meta.get("npcompile"), numpy=meta.get("numpy"))
        result["seed"] = {"npc_init_s": meta.get("npc_init_s"), "npc_copy_GBps": meta.get("npc_copy_GBps"),
                          "numpy_copy_GBps": meta.get("numpy_copy_GBps"),
                          "rows": [seed.get(c, {"workload": c[0], "dtype": c[1]})
                                   for c in seed_cases(opts.only_seed)]}
    if not opts.no_programs:
        npc = run_programs_npc(opts, env_npc, log, names)
        by = {r["program"]: r for r in npc.get("rows", [])}
        keep = ("status", "numpy_s", "cold_s", "warm_s", "compiled_s", "path", "graphs", "graph_breaks",
                "fallbacks", "compiles", "recompiles", "compile_ms", "error", "mismatch")
        result["programs"] = {"rows": [dict(program=n, **{k: by.get(n, {}).get(k) for k in keep}) for n in names],
                              "npc_geomean_run_programs": npc.get("geomean_speedup")}
        if npc.get("rows"):
            result["versions"]["npcompile"] = npc["rows"][0].get("npcompile")
        finish(result)
        write(result, opts)

    # 2. torch.compile: one process, seeds then the corpus
    if not opts.no_seed:
        log("seed workloads, torch.compile:")
        for r in result["seed"]["rows"]:
            t = torch.run({"seed": [r["workload"], r["dtype"]]}, torch_limit())
            t.pop("workload", None)
            t.pop("dtype", None)
            r.update(t)
        result["torch_init_s"] = torch.init.get("torch_init_s")
        finish(result)
        write(result, opts)
    if not opts.no_programs:
        log("programs, torch.compile:")
        torch_programs(result["programs"]["rows"], result)
    torch.close()
    result["torch_init_s"] = torch.init.get("torch_init_s")
    result["torch_threads"] = torch.init.get("torch_threads")
    if torch.init.get("torch"):
        result["versions"]["torch"] = torch.init["torch"]
    result["wall_s"] = time.monotonic() - start
    finish(result)
    write(result, opts)
    log(f"done in {result['wall_s']:.0f} s")
    shutil.rmtree(cache_root, ignore_errors=True)


def write(result, opts):
    if opts.json:
        with open(opts.json, "w") as f:
            json.dump(result, f, indent=1, default=str)
    if opts.md:
        with open(opts.md, "w") as f:
            f.write(markdown(result))


def fmt_s(v):
    if v is None:
        return "-"
    if v >= 1:
        return f"{v:.2f} s"
    if v >= 1e-3:
        return f"{v * 1e3:.2f} ms"
    return f"{v * 1e6:.0f} µs"


def fmt_x(v):
    return "-" if v is None else f"{v:.2f}x"


def markdown(res):
    m = res["machine"]
    out = [f"# npcompile CPU vs torch.compile CPU, {res['threads']} threads ({res['date']})", "",
           f"{m['cpu']}, {m['cores']} cores; Python {m['python']}; "
           + ", ".join(f"{k} {v}" for k, v in (res.get("versions") or {}).items()) + "; "
           f"commit {res.get('commit') or '?'}. Median of {res['reps']} warm calls; 'cold'/'first' is "
           "the first call, compile included. One-time starts, apart: npcompile "
           f"{fmt_s((res.get('seed') or {}).get('npc_init_s'))} (LLVM; inside each program's cold call, "
           f"since run_programs uses a process per program), torch.compile {fmt_s(res.get('torch_init_s'))} "
           "(Inductor; outside every first call). x NumPy = NumPy / time; npc/torch = torch.compile "
           "time / npcompile time (>1: npcompile faster). Ratios only where the values are NumPy's; "
           f"torch.compile first calls stopped after {res.get('torch_timeout_s', 0):.0f} s ('timeout').", ""]
    sd = res.get("seed")
    if sd and sd.get("geomean"):
        g = sd["geomean"]
        out += [f"## Seed workloads (scale {res['scale']})", "",
                f"Copy bandwidth (read+write) through npcompile {(sd.get('npc_copy_GBps') or 0):.0f} GB/s, "
                f"NumPy copy {(sd.get('numpy_copy_GBps') or 0):.0f} GB/s (a fresh 256 MB array each time).", "",
                "| workload | dtype | NumPy | npcompile | cold | path | torch.compile | first | npc x NumPy | torch x NumPy | npc/torch | first torch/npc | notes |",
                "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for r in sd["rows"]:
            bad = []
            if r.get("npc_check") != "ok":
                bad.append(f"npc: {r.get('npc_error') or r.get('npc_check')}")
            if r.get("torch_check") != "ok":
                bad.append(f"torch: {r.get('torch_error') or r.get('torch_check')}")
            out.append(f"| {r['workload']} | {r['dtype']} | {fmt_s(r.get('numpy_s'))} | {fmt_s(r.get('npc_s'))} | "
                       f"{fmt_s(r.get('npc_cold_s'))} | {r.get('npc_path', '-')} | {fmt_s(r.get('torch_s'))} | "
                       f"{fmt_s(r.get('torch_first_s'))} | {fmt_x(r.get('npc_x_numpy'))} | "
                       f"{fmt_x(r.get('torch_x_numpy'))} | {fmt_x(r.get('npc_over_torch'))} | "
                       f"{fmt_x(r.get('cold_npc_over_torch'))} | {'; '.join(bad)[:200]} |")
        out += ["", f"Geomeans: npcompile {fmt_x(g['npc_x_numpy'])} NumPy, torch.compile "
                f"{fmt_x(g['torch_x_numpy'])} NumPy, **npcompile/torch.compile {fmt_x(g['npc_over_torch'])}**; "
                f"first calls: npcompile {fmt_s(sd['geomean_cold_s']['npc'])}, torch.compile "
                f"{fmt_s(sd['geomean_cold_s']['torch'])} (geomeans), torch/npc {fmt_x(g['cold_npc_over_torch'])}.", ""]
    pg = res.get("programs")
    if pg and pg.get("count"):
        g, c = pg["geomean"], pg["count"]
        out += [f"## Program corpus (size {res['size']}, {len(pg['rows'])} programs)", "",
                f"Values right: npcompile {c['npc_ok']}, torch.compile {c['torch_ok']}, both {c['both_ok']}; "
                "torch.compile otherwise: " + ", ".join(f"{k[6:]} {v}" for k, v in c.items()
                                                        if k.startswith("torch_") and k != "torch_ok" and v)
                + "." + (f" Resumed in a second call on the same machine: {', '.join(pg['resumed']['programs'])}."
                         if pg.get("resumed") else ""), "",
                "NumPy, npcompile, cold: bench/run_programs.py (a fresh process per program). 'NumPy (t)': "
                "NumPy timed in torch's long-lived process, where it ran "
                f"{fmt_x(pg.get('geomean_numpy_here_over_torch_process'))} faster (geomean; allocator state), "
                "so 'npc/torch (t)' = (npcompile x NumPy) / (torch.compile x NumPy (t)) compares each "
                "with the NumPy of its own process. torch graphs 0 = Dynamo compiled nothing (ran eagerly).", "",
                "| program | NumPy | npcompile | cold | path | NumPy (t) | torch.compile | first | torch graphs/breaks | npc x NumPy | torch x NumPy (t) | npc/torch | npc/torch (t) | notes |",
                "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for r in pg["rows"]:
            notes = []
            if r.get("status") != "ok":
                notes.append(f"npc {r.get('status')}: {r.get('error') or r.get('mismatch') or ''}"[:140])
            if r.get("torch_status") != "ok":
                notes.append(f"torch {r.get('torch_status')}: {r.get('torch_error') or r.get('torch_mismatch') or ''}"[:140])
            gb = f"{r.get('torch_graphs', '-')}/{r.get('torch_breaks', '-')}"
            out.append(f"| {r['program']} | {fmt_s(r.get('numpy_s'))} | {fmt_s(r.get('warm_s'))} | "
                       f"{fmt_s(r.get('cold_s'))} | {r.get('path') or '-'} | {fmt_s(r.get('torch_numpy_s'))} | "
                       f"{fmt_s(r.get('torch_s'))} | {fmt_s(r.get('torch_first_s'))} | {gb} | "
                       f"{fmt_x(r.get('npc_x_numpy'))} | {fmt_x(r.get('torch_x_numpy_same_process'))} | "
                       f"{fmt_x(r.get('npc_over_torch'))} | {fmt_x(r.get('npc_over_torch_same_process'))} | "
                       f"{'; '.join(notes).replace('|', '/')} |")
        out += ["", f"Geomeans: npcompile {fmt_x(g['npc_x_numpy'])} NumPy ({c['npc_ok']} programs), "
                f"torch.compile {fmt_x(g['torch_x_numpy_same_process'])} NumPy (t) ({c['torch_ok']}; "
                f"{fmt_x(g['torch_x_numpy'])} against run_programs' NumPy), "
                f"**npcompile/torch.compile {fmt_x(g['npc_over_torch'])}, each against its own process's NumPy "
                f"{fmt_x(g['npc_over_torch_same_process'])}** ({c['both_ok']} both right, i.e. without the "
                f"{c.get('torch_timeout', 0)} where torch.compile's first call ran past "
                f"{res.get('torch_timeout_s', 0):.0f} s); "
                f"first calls: npcompile {fmt_s(pg['geomean_cold_s']['npc'])}, torch.compile "
                f"{fmt_s(pg['geomean_cold_s']['torch'])} (geomeans over the right ones), torch/npc "
                f"{fmt_x(g['cold_npc_over_torch'])}.", ""]
    if res.get("wall_s"):
        more = ((res.get("programs") or {}).get("resumed") or {}).get("wall_s")
        out.append(f"Whole run: {res['wall_s']:.0f} s" + (f", and {more:.0f} s in the resumed call." if more else "."))
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    main()
