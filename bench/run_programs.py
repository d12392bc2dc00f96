"""The program corpus (bench/programs/*.py) under eager NumPy, npcompile and its peers.

    /usr/bin/python3 bench/run_programs.py [--only heat1d,lu] [--size small|medium] [--reps 5]
        [--json out.json] [--device cpu|cuda] [--timeout-per-program 60] [--no-numba] [--no-x4]
        [--programs DIR]

Each program is ordinary NumPy (Python loops, in-place slice writes, moving slices); each
file has NAME, LOOPS, make_inputs(size, loop_scale=1) and run(*inputs). Per program, in a
subprocess of its own with a fresh NPC_CACHE_DIR (so the first call is a real compile and a
program that hangs or crashes costs only its own row):

  numpy     the fastest (--stat min, or the median) of --reps warm eager calls
  cold      npcompile.jit(run)'s first call (trace + compile + run); the values it returns,
            and the inputs it changed in place, checked against NumPy's
            (for programs with a LOOPS entry, the median of --cold-reps such calls, each in
            a fresh process)
  x4        the first call again, in other fresh processes, with the program's loop count
            times 4 (programs with a LOOPS entry): "loops compile once" keeps this near 1x
            plus the extra run time; the summary also gives the first call's overhead
            alone (cold less a warm call, at 4x against 1x: x4_overhead_ratio)
  warm      the same statistic of --reps later calls (more for programs under 30 ms, so that
            each side takes 150 ms: reps_for), taken in turns with NumPy's own calls (checked
            too), after the settling calls:
            the jit as users get it, which may choose plain NumPy after timing both paths
            ('path'); x NumPy = numpy / warm. 'cmpl x': the compiled path alone
            (jit(choose=False))
  graphs/breaks/fallbacks/compiles/recompiles: npcompile.report() of the first call
            (graphs: npcompile.explain of one more call); replay: whether warm calls skipped
            tracing
  numba     numba.njit(run) of the same function, or 'unsupp' when it does not compile
  cupy      (--device cuda) the same module with np bound to cupy, or 'unsupp' (programs
            drawing from np.random.default_rng get CuPy's own streams: 'WRONG' there is expected)

Every call gets fresh copies of the inputs (programs may change them). Values agree when
dtype, shape and kind of result (array, NumPy scalar, Python scalar) are NumPy's and
np.allclose holds (rtol 1e-6 for 64-bit floats, 1e-4 for 32-bit; integers and bools exact),
or, for a program with float32 inputs, the float results are as close to the program run
in float64 as NumPy's own (rounding_only; noted as 'values ok: ... float32 rounding').
"""
import argparse
import copy
import glob
import importlib.util
import json
import math
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
# --programs DIR runs another corpus of the same form (a held-out set of programs the
# compiler was not tuned on); the workers get it through NPC_PROGRAMS_DIR
PROGRAMS = os.environ.get("NPC_PROGRAMS_DIR") or os.path.join(HERE, "programs")
MARK = "@@RESULT "


def settle_calls():
    """Calls after the cold one before warm timing: the jit's path choice samples each
    side SAMPLES times (api/path_choice.py); timed before it chose, a short run of warm
    calls measured the NumPy samples (medium sizes, --reps 3: 1.00x for a 4.4x program)."""
    try:
        from npcompile.api.path_choice import WARMUP_CALLS
    except ImportError:   # a version without path choice
        return 1
    return WARMUP_CALLS


# ----------------------------------------------------------------------------- helpers

def load_program(name, np_module=None):
    """The program's module (a fresh one each call); with np_module, its `np` rebound."""
    path = os.path.join(PROGRAMS, name + ".py")
    spec = importlib.util.spec_from_file_location(f"npc_program_{name}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    if np_module is not None:
        mod.np = np_module
    return mod


def program_names():
    return sorted(os.path.splitext(os.path.basename(p))[0]
                  for p in glob.glob(os.path.join(PROGRAMS, "*.py")) if not p.endswith("__init__.py"))


STAT = [min]  # --stat: the statistic of the timed calls


def median_time(fn, make_args, reps):
    """The statistic (--stat, default min) of reps calls, fresh arguments for each."""
    ts = []
    for _ in range(reps):
        args = make_args()
        t0 = time.perf_counter()
        fn(*args)
        ts.append(time.perf_counter() - t0)
    return STAT[0](ts)


# Paired warm timings take at least this many seconds per side where --reps calls would
# take less (up to MAX_REPS calls): a median of 5 sub-millisecond calls on a shared machine
# read 0.90x for a program whose jitted call runs NumPy itself (conjugate_gradient: 0.303
# against 0.304 ms over 41 calls each), and one of 6 calls of 7.5 ms read 0.87x
# (rk45_lorenz, 7.134 against 7.139 ms over 41)
MIN_SIDE_S = 0.15
MAX_REPS = 41


def reps_for(seconds, reps):
    """--reps, or more for a program that runs in `seconds` (see MIN_SIDE_S)."""
    if seconds <= 0:
        return reps
    return max(reps, min(MAX_REPS, int(MIN_SIDE_S / seconds)))


def paired_times(fn_a, fn_b, make_args, reps):
    """(statistic of fn_a, statistic of fn_b) over reps calls each, taken in turns: both
    see the same process state (heap, caches). NumPy timed once at the start, on a fresh
    heap, and npcompile later, after its compiles, favoured NumPy by 10-15% on
    sub-millisecond programs, enough to read 0.85x on a program that runs NumPy itself."""
    ta, tb = [], []
    for _ in range(reps):
        for fn, ts in ((fn_a, ta), (fn_b, tb)):
            args = make_args()
            t0 = time.perf_counter()
            fn(*args)
            ts.append(time.perf_counter() - t0)
    return STAT[0](ta), STAT[0](tb)


def short(text, n=160):
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[:n - 3] + "..."


def compare(ref, got, path="out", strict_type=True):
    """None when got is ref as NumPy would have it, else what differs (one line). Without
    strict_type a Python scalar stands for a NumPy scalar (what Numba returns)."""
    import numpy as np
    if isinstance(ref, (tuple, list)):
        if type(got) is not type(ref) or len(got) != len(ref):
            return f"{path}: {type(got).__name__} of {len(got) if hasattr(got, '__len__') else '?'}" \
                   f" instead of {type(ref).__name__} of {len(ref)}"
        for i, (r, g) in enumerate(zip(ref, got)):
            d = compare(r, g, f"{path}[{i}]", strict_type)
            if d:
                return d
        return None

    def kind(v):
        if isinstance(v, np.ndarray):
            return "ndarray"
        if isinstance(v, np.generic):
            return "numpy scalar"
        return type(v).__name__
    if not strict_type and isinstance(ref, np.generic) and isinstance(got, (bool, int, float, complex)):
        got = type(ref)(got)
    if kind(ref) != kind(got):
        return f"{path}: type {kind(got)} ({type(got).__name__}) instead of {kind(ref)} ({type(ref).__name__})"
    r, g = np.asarray(ref), np.asarray(got)
    if r.dtype != g.dtype:
        return f"{path}: dtype {g.dtype} instead of {r.dtype}"
    if r.shape != g.shape:
        return f"{path}: shape {g.shape} instead of {r.shape}"
    if r.dtype.kind in "fc":
        small = r.dtype.itemsize <= (4 if r.dtype.kind == "f" else 8)
        rtol, atol = (1e-4, 1e-5) if small else (1e-6, 1e-8)
        if np.allclose(g, r, rtol=rtol, atol=atol, equal_nan=True):
            return None
        with np.errstate(all="ignore"):
            err = np.abs(g.astype(np.complex128) - r)
            bad = ~np.isclose(g, r, rtol=rtol, atol=atol, equal_nan=True)
            worst = np.unravel_index(np.argmax(np.where(bad, err, -1)), r.shape) if r.ndim else ()
        return (f"{path}: values differ at {int(bad.sum())} of {r.size} elements; "
                f"e.g. {tuple(int(i) for i in worst)}: {g[worst]!r} instead of {r[worst]!r}")
    if np.array_equal(g, r):
        return None
    bad = g != r
    worst = tuple(int(i[0]) for i in np.nonzero(bad)) if r.ndim else ()
    return (f"{path}: values differ at {int(np.sum(bad))} of {r.size} elements; "
            f"e.g. {worst}: {g[worst]!r} instead of {r[worst]!r}")


# ----------------------------------------------------------------------------- worker

def emit(row):
    print(MARK + json.dumps(row, default=str), flush=True)


def worker(opts):
    """One program in this process; prints its row (updated after every stage)."""
    warnings.simplefilter("ignore")
    import numpy as np
    row = {"program": opts.worker, "size": opts.size, "loop_scale": opts.loop_scale,
           "device": opts.device, "stage": "inputs"}
    emit(row)
    mod = load_program(opts.worker)
    inputs = mod.make_inputs(opts.size, loop_scale=opts.loop_scale) if opts.loop_scale != 1 \
        else mod.make_inputs(opts.size)

    def fresh():
        return copy.deepcopy(inputs)

    reps = opts.reps if opts.loop_scale == 1 else max(1, min(opts.reps, 3))

    # eager NumPy: the oracle (values and what it changed in its arguments). npcompile is
    # loaded first: loading it tunes the process's allocator (compiler/runtime/
    # MallocTuning.cpp), which speeds eager NumPy too; NumPy's time is taken under the same
    # allocator as every npcompile time, so that no ratio credits the allocator.
    try:
        import npcompile  # noqa: F401
    except Exception:
        pass              # reported below, where npcompile's own stages begin
    row["stage"] = "numpy"
    emit(row)
    ref_args = fresh()
    ref = mod.run(*ref_args)
    wide_results = []

    def exact():
        """The program run on float64 inputs (float32 ones widened), once, or None."""
        if not wide_results:
            wide = widened(inputs)
            try:
                wide_results.append(None if wide is None else mod.run(*copy.deepcopy(wide)))
            except Exception:
                wide_results.append(None)
        return wide_results[0]
    row["numpy_s"] = median_time(mod.run, fresh, reps)
    emit(row)

    row["stage"] = "npcompile import"
    emit(row)
    try:
        import npcompile
    except Exception as e:
        row["status"] = "error"
        row["error"] = f"import npcompile: {type(e).__name__}: {short(e, 200)}"
        row["stage"] = "done"
        emit(row)
        return
    row["npcompile"] = npcompile.__version__
    row["numpy"] = np.__version__
    npcompile.reset()

    def to_host(v):
        if isinstance(v, npcompile.DeviceArray):  # 0-d: what NumPy returns, a scalar
            return v.get()[()] if v.ndim == 0 else v.get()
        if isinstance(v, tuple):
            return tuple(to_host(x) for x in v)
        if isinstance(v, list):
            return [to_host(x) for x in v]
        return v

    jf = npcompile.jit(mod.run, device=opts.device)

    def call_npc(*args):
        return to_host(jf(*args))

    def timed(f):
        """f as its calls are timed: on the GPU the results stay DeviceArrays, as
        device="cuda" returns them, once the kernels end (a synchronize), and are read
        back only for the value checks. CuPy's figure leaves its results on the device
        the same way; reading them back in the timed call charged npcompile a host
        copy of every result that neither NumPy nor CuPy paid (moving_average 0.80x)."""
        if opts.device != "cuda":
            return f

        def call(*args):
            out = f(*args)
            npcompile.synchronize()
            return out
        return call

    row["stage"] = "npcompile cold"
    emit(row)
    args = fresh()
    t0 = time.perf_counter()
    try:
        out = call_npc(*args)
    except BaseException as e:  # an error is a result: record it and go on to the peers
        row["cold_s"] = time.perf_counter() - t0
        row["status"] = "error"
        row["error"] = f"{type(e).__name__}: {short(e, 300)}"
        row["traceback"] = traceback.format_exc()[-2000:]
        out = None
    else:
        row["cold_s"] = time.perf_counter() - t0
    if opts.cold_only:      # one more sample of the first call (run_worker's median)
        row["stage"] = "done"
        emit(row)
        return
    rep = npcompile.report()
    row["traces"] = len(rep["traces"])
    row["graph_breaks"] = len(rep["graph_breaks"])
    row["fallbacks"] = len(rep["fallbacks"])
    row["compiles"] = len(rep["compiles"])
    row["recompiles"] = len(rep["recompiles"])
    row["kernels_run"] = len(rep["kernels"])
    row["compile_ms"] = sum(c.get("total_ms", 0.0) for c in rep["compiles"])
    row["break_reasons"] = unique_reasons(
        [f"line {b.get('lineno')}: {b.get('reason')}" for b in rep["graph_breaks"]])
    row["fallback_reasons"] = unique_reasons([f.get("reason", "") for f in rep["fallbacks"]])
    row["recompile_reasons"] = unique_reasons([r.get("reason", "") for r in rep["recompiles"]])
    emit(row)
    if out is not None:
        diff = values_diff(row, ref, out, ref_args, args, exact)
        row["status"] = "ok" if diff is None else classify(diff)
        if diff:
            row["mismatch"] = diff
        emit(row)

        if opts.loop_scale == 1:
            row["stage"] = "npcompile warm"
            emit(row)
            try:
                # the jit as a user gets it: it may choose plain NumPy after timing both
                # paths on its first calls (report()["path_choices"]), so settle first
                for _ in range(settle_calls()):
                    call_npc(*fresh())
                warm_reps = reps_for(row["numpy_s"], reps)
                numpy_now, row["warm_s"] = paired_times(mod.run, timed(jf), fresh,
                                                        warm_reps)
                row["numpy_first_s"] = row["numpy_s"]     # on the fresh heap, at the start
                row["numpy_s"] = numpy_now
                row["speedup"] = row["numpy_s"] / row["warm_s"]
                check_warm(row, "warm call", call_npc, fresh, ref, ref_args, exact)
                choices = npcompile.report().get("path_choices", [])
                row["path"] = choices[-1]["choice"] if choices else "compiled"
                if choices:
                    row["path_reason"] = choices[-1].get("reason")
                # the compiled path alone (no choice of plain NumPy): what the compiler does
                try:
                    jc = npcompile.jit(mod.run, device=opts.device, choose=False)
                except TypeError:  # a version without path choice
                    jc = jf

                def call_compiled(*args):
                    return to_host(jc(*args))
                call_compiled(*fresh())
                n_traces = len(npcompile.report()["traces"])
                n_compiles = len(npcompile.report()["compiles"])
                numpy_now, row["compiled_s"] = paired_times(mod.run, timed(jc), fresh,
                                                            warm_reps)
                row["speedup_compiled"] = numpy_now / row["compiled_s"]
                check_warm(row, "warm compiled call", call_compiled, fresh, ref, ref_args,
                           exact)
                rep = npcompile.report()
                warm = rep["traces"][n_traces:]
                row["replayed"] = sum(1 for t in warm if t.get("replay"))
                row["warm_calls"] = len(warm)
                row["warm_compiles"] = len(rep["compiles"]) - n_compiles
                row["warm_fallbacks"] = len(rep["fallbacks"]) - row["fallbacks"]
                row["fallback_reasons"] = unique_reasons(
                    [f.get("reason", "") for f in rep["fallbacks"]])
            except BaseException as e:
                row["status"] = "error"
                row["error"] = f"warm call: {type(e).__name__}: {short(e, 300)}"
                row["traceback"] = traceback.format_exc()[-2000:]
            emit(row)
            row["stage"] = "npcompile explain"
            emit(row)
            try:
                ex = npcompile.explain(jf)(*fresh())
                row["graphs"] = ex.graph_count
                row["explain_breaks"] = ex.graph_break_count
            except BaseException as e:
                row["explain_error"] = f"{type(e).__name__}: {short(e)}"
            emit(row)
        else:
            row["stage"] = "npcompile warm"
            emit(row)
            try:
                row["warm_s"] = median_time(timed(jf), fresh, reps)
            except BaseException as e:
                row["error"] = f"warm call: {type(e).__name__}: {short(e, 300)}"
            emit(row)

    # the peers after npcompile: a peer that runs past the time limit (CuPy on a loop of
    # element reads, one device sync each) then costs only its own figure (collect())
    if opts.loop_scale == 1 and opts.device == "cuda":
        row["stage"] = "cupy"
        emit(row)
        row.update(run_cupy(opts.worker, inputs, ref, reps))
        row["jax"] = "skipped (the programs write arrays in place)"
        emit(row)
    if opts.loop_scale == 1 and not opts.no_numba and opts.device == "cpu":
        row["stage"] = "numba"
        emit(row)
        row.update(run_numba(mod, fresh, ref, ref_args, reps))
        emit(row)
    row["stage"] = "done"
    emit(row)


PEER_STAGES = ("cupy", "numba")


def widened(inputs):
    """The inputs with every float32 array and scalar as float64, or None where there is
    none: the program then computes in float64 what it computed in float32."""
    import numpy as np
    seen = [False]

    def wide(x):
        if isinstance(x, (np.ndarray, np.generic)) and x.dtype == np.float32:
            seen[0] = True
            return x.astype(np.float64)
        if isinstance(x, (tuple, list)):
            return type(x)(wide(v) for v in x)
        return x
    out = wide(inputs)
    return out if seen[0] else None


def _float_leaves(x):
    import numpy as np
    if isinstance(x, (tuple, list)):
        return [leaf for v in x for leaf in _float_leaves(v)]
    a = np.asarray(x)
    return [a] if a.dtype.kind == "f" else []


def rounding_only(ref, got, exact):
    """Where got's floats differ from NumPy's (ref) beyond the tolerance: is that float32
    rounding? Against the program run on float64 inputs (exact), got's worst error
    (relative to the array's largest value) is at most 4x NumPy's own worst one. float32
    exp/log are a few ulps apart between implementations (NumPy's SIMD loops, CUDA's expf:
    3 ulps), and a difference like call - put cancels them up to 1e-6 of a float64 result
    (black_scholes, whose CuPy results are npcompile's to the bit). A description, or
    None when it is not so."""
    import numpy as np
    r, g, e = _float_leaves(ref), _float_leaves(got), _float_leaves(exact)
    if not r or len(r) != len(g) or len(r) != len(e):
        return None
    worst_np = worst_got = 0.0
    with np.errstate(all="ignore"):
        for a, b, x in zip(r, g, e):
            if a.shape != b.shape or a.shape != x.shape:
                return None
            # normwise: against the array's largest value (a price near 0 has no digits
            # of its own to lose)
            scale = float(np.nanmax(np.abs(x), initial=0.0)) or 1.0
            worst_np = max(worst_np, float(np.nanmax(np.abs(a - x), initial=0.0)) / scale)
            worst_got = max(worst_got, float(np.nanmax(np.abs(b - x), initial=0.0)) / scale)
    if not worst_got <= 4 * max(worst_np, np.finfo(np.float32).eps):
        return None
    return (f"float32 rounding: worst error against the program in float64 "
            f"{worst_got:.1e}, NumPy's own {worst_np:.1e}")


def values_diff(row, ref, out, ref_args, args, exact):
    """compare() of the results and the inputs after the call; a float difference that is
    float32 rounding (rounding_only; exact() runs the program in float64 once) is noted
    in the row instead."""
    diff = compare(ref, out) or compare(ref_args, args, "inputs after the call")
    if diff and "values differ" in diff and not diff.startswith("inputs"):
        x = exact()
        why = rounding_only(ref, out, x) if x is not None else None
        if why:
            row["rounding"] = f"{diff}; {why}"
            return None
    return diff


def check_warm(row, what, call, fresh, ref, ref_args, exact):
    """One more call, its values and in-place writes checked; the first mismatch is kept."""
    args = fresh()
    out = call(*args)
    diff = values_diff(row, ref, out, ref_args, args, exact)
    if diff and row.get("status") == "ok":
        row["status"] = classify(diff)
        row["mismatch"] = f"{what}: {diff}"


def classify(diff):
    if ": type " in diff:
        return "type"
    if ": dtype " in diff:
        return "dtype"
    if ": shape " in diff:
        return "shape"
    return "WRONG"


def unique_reasons(reasons, n=6):
    seen = []
    for r in reasons:
        r = short(r, 240)
        if r not in seen:
            seen.append(r)
    return seen[:n] + ([f"... {len(seen) - n} more"] if len(seen) > n else [])


def run_numba(mod, fresh, ref, ref_args, reps):
    try:
        import numba
    except Exception:
        return {"numba": "not installed"}
    res = {}
    try:
        nf = numba.njit(mod.run)
        args = fresh()
        t0 = time.perf_counter()
        out = nf(*args)
        res["numba_cold_s"] = time.perf_counter() - t0
    except Exception as e:
        msg = [ln.strip() for ln in re.sub(r"\x1b\[[0-9;]*m", "", str(e)).splitlines() if ln.strip()]
        why = next((ln for ln in msg if not ln.startswith(("Failed in", "During:", "File", "^", "- Resolution"))),
                   type(e).__name__)
        res["numba"] = "unsupported"
        res["numba_reason"] = short(f"{type(e).__name__}: {why}", 200)
        return res
    diff = compare(ref, out, strict_type=False) or compare(ref_args, args, "inputs after the call")
    res["numba"] = "ok" if diff is None else classify(diff)
    if diff:
        res["numba_reason"] = diff
    res["numba_s"] = median_time(nf, fresh, reps)
    return res


def run_cupy(name, inputs, ref, reps):
    """The program's own code with np bound to cupy: works where the program uses only what
    CuPy mirrors (a drop-in, nothing rewritten)."""
    try:
        import cupy
        import numpy as np
    except Exception as e:
        return {"cupy": f"not installed ({type(e).__name__})"}
    mod = load_program(name, cupy)

    def dev(v):
        if isinstance(v, np.ndarray):
            return cupy.asarray(v)
        if isinstance(v, tuple):
            return tuple(dev(x) for x in v)
        return v

    def host(v):
        if isinstance(v, cupy.ndarray):
            return cupy.asnumpy(v) if v.ndim else cupy.asnumpy(v)[()]
        if isinstance(v, tuple):
            return tuple(host(x) for x in v)
        return v

    def call(*args):
        out = mod.run(*args)
        cupy.cuda.Device().synchronize()
        return out

    def fresh():
        return dev(copy.deepcopy(inputs))
    try:
        out = host(call(*fresh()))
        t = median_time(call, fresh, reps)
    except Exception as e:
        return {"cupy": "unsupported", "cupy_reason": short(f"{type(e).__name__}: {e}", 200)}
    diff = compare(ref, out, strict_type=False)
    return {"cupy": "ok" if diff is None else classify(diff), "cupy_s": t,
            **({"cupy_reason": diff} if diff else {})}


# ----------------------------------------------------------------------------- parent

def cold_median(name, opts, loop_scale, row):
    """row's cold_s as the median of --cold-reps first calls, each in a fresh process
    (row's own and cold-only workers'): a first call is one sample on a shared machine,
    and the x4/x1 ratio of two single samples moved by 0.5 from run to run (jacobi_iteration
    1.62 in one run, 1.0 in five by hand)."""
    samples = [row["cold_s"]] if row.get("cold_s") else []
    for _ in range(max(0, opts.cold_reps - 1)):
        extra = run_worker(name, opts, loop_scale, cold_only=True)
        if extra.get("cold_s") and extra.get("status", "ok") not in ("error", "timeout", "crash"):
            samples.append(extra["cold_s"])
    if samples:
        row["cold_samples"] = samples
        row["cold_s"] = statistics.median(samples)


def run_worker(name, opts, loop_scale, cold_only=False):
    """The row of one program, from a subprocess with a fresh compile cache and a time limit."""
    cache = tempfile.mkdtemp(prefix="npc-programs-cache-")
    env = dict(os.environ, NPC_CACHE_DIR=cache)
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", name, "--size", opts.size,
           "--reps", str(opts.reps), "--stat", opts.stat, "--device", opts.device, "--loop-scale", str(loop_scale)]
    if opts.no_numba:
        cmd.append("--no-numba")
    if cold_only:
        cmd.append("--cold-only")
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env, start_new_session=True)
    timed_out = False
    try:
        out, err = proc.communicate(timeout=opts.timeout_per_program)
    except subprocess.TimeoutExpired:
        timed_out = True
        os.killpg(proc.pid, signal.SIGKILL)  # the worker's own session: it and its children
        out, err = proc.communicate()
    finally:
        subprocess.run(["rm", "-rf", cache])
    row = {"program": name}
    for line in out.splitlines():
        if line.startswith(MARK):
            row = json.loads(line[len(MARK):])
    row["wall_s"] = time.perf_counter() - t0
    if timed_out and row.get("stage") in PEER_STAGES and row.get("warm_s"):
        # npcompile's figures are in: the peer gets the timeout
        row[row["stage"]] = "timeout"
        row[row["stage"] + "_reason"] = f"no result after {opts.timeout_per_program:.0f} s"
    elif timed_out:
        row["status"] = "timeout"
        row["error"] = f"no result after {opts.timeout_per_program:.0f} s (stage: {row.get('stage')})"
    elif proc.returncode != 0:
        row["status"] = "crash" if proc.returncode < 0 else row.get("status", "error")
        tail = [ln for ln in err.strip().splitlines() if ln.strip()][-3:]
        row.setdefault("error", f"exit {proc.returncode} in stage {row.get('stage')}: "
                                + short(" | ".join(tail), 400))
    return row


def ms(v, width=9):
    if v is None:
        return f"{'-':>{width}s}"
    v *= 1e3
    s = f"{v:.0f}ms" if v >= 100 else f"{v:.1f}ms" if v >= 1 else f"{v:.3f}ms"
    return f"{s:>{width}s}"


def cnt(row, key, width=6):
    v = row.get(key)
    return f"{'-' if v is None else v:>{width}}"


def geomean(vals):
    vals = [v for v in vals if v and v > 0]
    return math.exp(sum(math.log(v) for v in vals) / len(vals)) if vals else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", default="", help="comma-separated program names")
    ap.add_argument("--programs", default="", help="a folder of programs of the same form "
                    "(default: bench/programs)")
    ap.add_argument("--size", default="small", choices=["small", "medium"])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--json", default="")
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    ap.add_argument("--stat", default="min", choices=["min", "median"],
                    help="statistic of the timed calls (default min: eager NumPy's times are "
                         "bimodal here, e.g. heat1d alternates 7 and 25 ms with the allocator)")
    ap.add_argument("--timeout-per-program", type=float, default=90.0)
    ap.add_argument("--no-numba", action="store_true")
    ap.add_argument("--no-x4", action="store_true", help="skip the loop_scale=4 cold calls")
    ap.add_argument("--cold-reps", type=int, default=3,
                    help="first calls (fresh processes) whose median is a program's cold time "
                         "where its loop count is scaled (x4/x1), default 3")
    ap.add_argument("--cold-only", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--worker", default="", help=argparse.SUPPRESS)
    ap.add_argument("--loop-scale", type=int, default=1, help=argparse.SUPPRESS)
    opts = ap.parse_args()
    STAT[0] = min if opts.stat == "min" else statistics.median
    if opts.programs:
        global PROGRAMS
        PROGRAMS = os.environ["NPC_PROGRAMS_DIR"] = os.path.abspath(opts.programs)
    if opts.worker:
        return worker(opts)

    names = program_names()
    if opts.only:
        want = [n.strip() for n in opts.only.split(",") if n.strip()]
        unknown = [n for n in want if n not in names]
        if unknown:
            sys.exit(f"unknown programs: {', '.join(unknown)} (have: {', '.join(names)})")
        names = want
    t_start = time.perf_counter()
    print(f"{len(names)} programs, size {opts.size}, device {opts.device}, {opts.stat} of {opts.reps} calls; "
          f"{os.cpu_count()} cores; timeout {opts.timeout_per_program:.0f} s per program", flush=True)
    peer = "cupy" if opts.device == "cuda" else "numba"
    hdr = (f"{'program':22s} {'values':7s} {'numpy':>9s} {'npc cold':>9s} {'cold x4':>9s} {'x4/x1':>6s} "
           f"{'npc warm':>9s} {'xNumPy':>7s} {'path':>5s} {'cmpl x':>7s} {'graphs':>6s} {'breaks':>6s} {'fallbk':>6s} "
           f"{'compil':>6s} {'recomp':>6s} {'replay':>6s} {peer:>8s}")
    print(hdr)
    print("-" * len(hdr), flush=True)
    rows = []
    for name in names:
        row = run_worker(name, opts, 1)
        mod_loops = load_program(name).LOOPS
        if mod_loops and not opts.no_x4 and row.get("status") not in ("timeout", "crash"):
            cold_median(name, opts, 1, row)
            r4 = run_worker(name, opts, 4)
            if r4.get("status") in ("ok", "type", "dtype", "shape", "WRONG"):
                cold_median(name, opts, 4, r4)
            row["cold4_s"] = r4.get("cold_s") if r4.get("status") in ("ok", "type", "dtype", "shape", "WRONG") else None
            row["x4_status"] = r4.get("status")
            row["x4_error"] = r4.get("error") or r4.get("mismatch")
            for k in ("numpy_s", "warm_s", "compiles", "graph_breaks", "fallbacks", "recompiles"):
                row[f"x4_{k}"] = r4.get(k)
            if row.get("cold4_s") and row.get("cold_s"):
                row["x4_ratio"] = row["cold4_s"] / row["cold_s"]
                # the first call's overhead alone (cold less a warm call at that loop
                # count): x4_ratio also holds the run itself, 4x longer by design
                extra = row["cold_s"] - (row.get("warm_s") or 0.0)
                extra4 = row["cold4_s"] - (row.get("x4_warm_s") or 0.0)
                if extra > 0 and extra4 > 0 and row.get("warm_s") and row.get("x4_warm_s"):
                    row["x4_overhead_ratio"] = extra4 / extra
        rows.append(row)
        print_row(row, peer)
    print("-" * len(hdr))
    ok = [r for r in rows if r.get("status") == "ok"]
    sp = geomean([r.get("speedup") for r in ok])
    spc = geomean([r.get("speedup_compiled") for r in ok])
    cold = geomean([r["numpy_s"] / r["cold_s"] for r in ok if r.get("cold_s") and r.get("numpy_s")])
    x4 = geomean([r.get("x4_ratio") for r in ok if r.get("x4_ratio")])
    x4o = [r.get("x4_overhead_ratio") for r in ok if r.get("x4_overhead_ratio")]
    peer_sp = geomean([r["numpy_s"] / r[f"{peer}_s"] for r in rows
                       if r.get(peer) == "ok" and r.get(f"{peer}_s")])
    by = {}
    for r in rows:
        by[r.get("status", "?")] = by.get(r.get("status", "?"), 0) + 1
    def g(v, digits=2):
        return "n/a" if v != v else f"{v:.{digits}f}x"
    print(f"geomean over the {len(ok)} programs with NumPy's values: npcompile warm {g(sp)} NumPy "
          f"({sum(1 for r in ok if r.get('path') == 'numpy')} chose plain NumPy), compiled path {g(spc)}, "
          f"cold call {g(cold, 3)} NumPy, cold x4/x1 {g(x4)} (first-call overhead alone "
          f"{g(geomean(x4o))}, {sum(1 for v in x4o if v > 1.5)} above 1.5x); "
          f"{peer} {g(peer_sp)} NumPy on the {sum(1 for r in rows if r.get(peer) == 'ok')} it compiles")
    print("values: " + ", ".join(f"{k} {v}" for k, v in sorted(by.items()))
          + f"; {sum(1 for r in rows if r.get('fallbacks'))} programs with fallbacks, "
          f"{sum(1 for r in rows if r.get('graph_breaks'))} with graph breaks; "
          f"total {time.perf_counter() - t_start:.0f} s")
    print_notes(rows)
    if opts.json:
        with open(opts.json, "w") as f:
            json.dump({"size": opts.size, "device": opts.device, "reps": opts.reps, "stat": opts.stat,
                       "geomean_speedup": sp, "geomean_speedup_compiled": spc, "geomean_cold_vs_numpy": cold,
                       "geomean_x4_ratio": x4, "geomean_x4_overhead_ratio": geomean(x4o),
                       "rows": rows}, f, indent=1, default=str)


def print_row(r, peer):
    status = r.get("status", "?")
    x4 = r.get("x4_ratio")
    sp = r.get("speedup")
    spc = r.get("speedup_compiled")
    path = {"numpy": "NumPy", "compiled": "npc", "loops": "loops"}.get(r.get("path"), "-")
    if r.get(peer) == "ok" and r.get(f"{peer}_s") and r.get("numpy_s"):
        p = f"{r['numpy_s'] / r[f'{peer}_s']:.2f}x"
    else:
        p = {"unsupported": "unsupp", None: "-"}.get(r.get(peer), str(r.get(peer))[:8])
    rp = "-" if r.get("warm_calls") is None else f"{r.get('replayed', 0)}/{r['warm_calls']}"
    print(f"{r['program']:22s} {status:7s} {ms(r.get('numpy_s'))} {ms(r.get('cold_s'))} "
          f"{ms(r.get('cold4_s'))} {(f'{x4:.2f}' if x4 else '-'):>6s} {ms(r.get('warm_s'))} "
          f"{(f'{sp:.2f}x' if sp else '-'):>7s} {path:>5s} {(f'{spc:.2f}x' if spc else '-'):>7s} {cnt(r, 'graphs')} {cnt(r, 'graph_breaks')} "
          f"{cnt(r, 'fallbacks')} {cnt(r, 'compiles')} {cnt(r, 'recompiles')} {rp:>6s} {p:>8s}",
          flush=True)


def print_notes(rows):
    print("\nnotes:")
    for r in rows:
        lines = []
        for key, label in (("error", "error"), ("mismatch", "values"), ("rounding", "values ok"),
                           ("x4_error", "x4 run")):
            if r.get(key):
                lines.append(f"{label}: {short(r[key], 300)}")
        for reason in r.get("fallback_reasons", [])[:3]:
            lines.append(f"fallback: {short(reason, 240)}")
        for reason in r.get("break_reasons", [])[:3]:
            lines.append(f"break: {short(reason, 200)}")
        for reason in r.get("recompile_reasons", [])[:2]:
            lines.append(f"recompile: {short(reason, 200)}")
        if r.get("warm_compiles"):
            lines.append(f"warm calls compiled {r['warm_compiles']} more graphs")
        for peer in ("numba", "cupy"):
            if r.get(f"{peer}_reason"):
                lines.append(f"{peer}: {short(r[f'{peer}_reason'], 160)}")
        if lines:
            print(f"  {r['program']}:")
            for ln in lines:
                print(f"    {ln}")


if __name__ == "__main__":
    main()
