"""A graph's kernels as a few translation units compiled at the same time, one per core
at most. One unit per graph parses the prelude once and runs the optimizer once (about
30% less work than kernel by kernel); on several cores, units built side by side cost
the longest one (normalize_outer, warm JIT, 2 cores: 42 -> 26 ms float64, 52 -> 28 ms
float32). The native compile releases the GIL and builds outside its lock, so plain
threads overlap."""
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from ..codegen.cpp import module_source

_EXECUTOR = None  # (pid, executor): a forked child has none of its parent's threads


def _cores():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def units_of(kernels, cores=None):
    """Kernels split into at most `cores` groups of about equal source length (longest
    first into the lightest group): deterministic, so cache keys are stable."""
    n = min(len(kernels), cores or _cores())
    if n <= 1:
        return [list(kernels)]
    groups = [[] for _ in range(n)]
    size = [0] * n
    for k in sorted(kernels, key=lambda k: -len(k.body)):
        i = size.index(min(size))
        groups[i].append(k)
        size[i] += len(k.body)
    order = {id(k): i for i, k in enumerate(kernels)}
    return [sorted(g, key=lambda k: order[id(k)]) for g in groups]


def compile_units(native, kernels):
    """[(kernels, source, result of native.compile)] for all kernels, built at once. Each
    result also says where and when it was built: "thread" ("" for the calling thread,
    else the compile worker's name) and "t_start" (time.perf_counter()), which the
    profiler's timeline lays its phases out by (units overlap: their phases, summed,
    exceed the compile's length)."""
    global _EXECUTOR
    jobs = []
    for group in units_of(kernels):
        symbols = [name for k in group for name in (k.names or [k.name])]
        jobs.append((group, module_source(group), symbols))
    if len(jobs) == 1:
        group, source, symbols = jobs[0]
        return [(group, source, _timed(native, source, symbols, ""))]
    if _EXECUTOR is None or _EXECUTOR[0] != os.getpid():
        _EXECUTOR = (os.getpid(), ThreadPoolExecutor(max_workers=max(1, _cores() - 1),
                                                     thread_name_prefix="npc-compile"))
    futures = [_EXECUTOR[1].submit(_timed, native, source, symbols, None)
               for _, source, symbols in jobs[1:]]
    first = _timed(native, jobs[0][1], jobs[0][2], "")  # this thread builds one unit too
    results = [first] + [f.result() for f in futures]
    return [(group, source, r) for (group, source, _), r in zip(jobs, results)]


def _timed(native, source, symbols, thread):
    t = time.perf_counter()
    r = native.compile(source, symbols)
    r["thread"] = threading.current_thread().name if thread is None else thread
    r["t_start"] = t
    return r
