"""Runs a flushed graph: cache lookup (hit, compile, recompile with reasons), execution,
and the records every report is made from."""
import os
import sys
import time
import weakref

import numpy as np

from ..cell_names import shown
from ..ops import VIEW_LABELS
from ..graph.cache import GraphCache
from ..graph.recorded import Recorded
from ..graph.signature import collect
from ..profile_hook import is_watch
from ..records import SESSION
from ..trace_core import core
from . import eager_timing, reference


def _physical_memory():
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 1 << 62


_MEMORY = _physical_memory()


def _beyond_memory(pending):
    """Why the graph runs in NumPy when one of its arrays is larger than this machine's
    memory (np.zeros(10**13) + a), else None."""
    for n in pending:
        if n.dtype is None:
            continue
        size = n.dtype.itemsize
        for d in n.shape:
            size *= d
        if size > _MEMORY:
            return (f"an array of {size / 2**30:.0f} GiB ({n.label}, shape {n.shape}) is larger "
                    f"than this machine's memory: NumPy runs the graph, and raises its error")
    return None


class SiteInfo:
    """Who is being traced: a jitted function or a cell, and the line that called it."""

    __slots__ = ("key", "function", "filename", "lineno")

    def __init__(self, key, function, filename, lineno):
        self.key = key
        self.function = function
        self.filename = filename
        self.lineno = lineno


class Engine:
    def __init__(self, session=SESSION):
        self.cache = GraphCache()
        self.session = session
        self.generation = 0  # bumped by reset(): replay plans (api/replay.py) expire
        self._watched = set()  # function sites whose graphs leave with their function

    def function_site(self, fn):
        """The graph cache's key for a jitted function: its id, not the function, so
        that the cache keeps no function (nor its code, constants and closure) alive; its
        sites' states are dropped when it is freed. A callable that takes no weak
        reference is held, as before."""
        key = ("fn", id(fn))
        if key not in self._watched:
            try:
                weakref.finalize(fn, self._forget, key)
            except TypeError:
                return ("fn", fn)
            self._watched.add(key)
        return key

    def _forget(self, key):
        self._watched.discard(key)
        self.cache.forget(key)

    def reset(self):
        self.cache.clear()
        self.generation += 1
        if core is not None:    # the jitted calls' grants to NumPy end with what chose them
            core.expire_grants()

    def record_break(self, tracer, rec):
        d = rec.as_dict()
        d["site"] = tracer.site.function
        self.session.add("graph_breaks", d)

    def record_trace_end(self, tracer):
        """The end of a trace whose start the jit or a cell recorded ("traces"): the
        Chrome trace and the viewer close its slice here (without it every trace read
        "(unfinished)", stretched to the session's end)."""
        self.session.add("trace_ends", {"function": tracer.site.function,
                                        "graphs": len(tracer.graph_ids),
                                        "breaks": len(tracer.breaks)})

    def run(self, tracer, outputs, exact_layout=False):
        # compiling and running a graph run no user code: out of the purity watch's sight
        # (profile_hook.py), set aside and back here, in this frame
        hook = sys.getprofile()
        if hook is not None and is_watch(hook):
            sys.setprofile(None)
        else:
            hook = None
        try:
            return self._run(tracer, outputs, exact_layout)
        finally:
            if hook is not None:
                sys.setprofile(hook)

    def _run(self, tracer, outputs, exact_layout):
        if tracer.reference_only:
            return self._run_uncompiled(tracer, outputs)
        t0 = time.perf_counter()
        site = tracer.site
        # (numbers as inputs, graph/number_inputs.py: host arrays, the CPU's steps)
        device = tracer.options.get("device", "cpu")
        leaves, pending, entry, key, status, reasons = self.cache.lookup_graph(
            (site.key, tracer.flush_index, device), outputs, tracer.options.get("dynamic"),
            device == "cpu")
        nodes = leaves + pending
        resized = entry is not None and entry.compiled is not None and \
            entry.compiled.signature != entry.compiled.shapes_of(nodes)
        # checked where kernels are built for these sizes, not on every run of a cached
        # program (its sizes passed when it was built)
        too_big = _beyond_memory(pending) if entry is None or resized else None
        if too_big:
            # NumPy allocates op by op, and raises MemoryError at the first array no
            # memory holds; a fused kernel would run (uninterruptibly) over it
            self.session.add("fallbacks", {"graph_id": -1, "function": site.function,
                                           "reason": too_big})
            return self._run_uncompiled(tracer, outputs)
        if entry is None:
            entry = self.cache.insert(key)
            program, target = self._compile(tracer, entry, leaves, pending, outputs)
            entry.compiled = program
            ms = (time.perf_counter() - t0) * 1e3
            if target == "deadline":
                # the budget ran out inside this graph's compile (one graph of hundreds of
                # distinct kernels): forgotten, so that the next call compiles it on
                del self.cache.entries[key]
                target = "reference"
            rec = {"graph_id": entry.graph_id, "function": site.function, "target": target,
                   "kernels": len(program.kernels) if program else 0, "ops": len(pending),
                   "total_ms": ms, "cache": program.cache if program else "miss"}
            if program:
                rec["phases"] = dict(program.compile_ms)
                if program.compile_units:
                    rec["units"] = [{"thread": u["thread"], "phases": u["phases"],
                                     "start_ms": max(0.0, (u["t_start"] - t0) * 1e3)}
                                    for u in program.compile_units]
            self.session.add("compiles", rec)
            if program:
                self._record_program(entry, program)
            capped = tracer.spent_compiling(ms)
            if capped is not None:
                self.session.add("fallbacks", {"graph_id": entry.graph_id,
                                               "function": site.function, "reason": capped})
            if status == "recompile":
                self.session.add("recompiles", {
                    "graph_id": entry.graph_id, "function": site.function,
                    "filename": shown(site.filename), "lineno": site.lineno,
                    "reason": "; ".join(reasons), "reasons": reasons})
        elif resized:
            # a dynamic dimension changed: kernels are specialized to sizes, so rebuild
            # (the JIT's cache makes a size seen before cheap)
            entry.compiled, _ = self._compile(tracer, entry, leaves, pending, outputs)
        tracer.graph_ids.append(entry.graph_id)
        if entry.compiled is not None and not exact_layout:
            eager_timing.maybe_measure(self.session, tracer, entry.graph_id, pending, outputs)
        t1 = time.perf_counter()
        with tracer.suspended():
            if entry.compiled is not None and not exact_layout:
                kept = _copies_for_a_rerun(tracer, entry.compiled)
                try:
                    values = entry.compiled.run(nodes)
                    tracer.runs.append((entry, leaves, outputs, True))
                    record_kernel_times(self.session, entry.compiled)
                    return values
                except Exception as e:  # never a wrong answer: the reference path
                    if getattr(e, "npc_numpy_step", False) and kept is None:
                        raise
                    # NumPy's error (backends/step_calls), or values a kernel flagged
                    # (a negative integer power): the reference path runs the graph in
                    # NumPy's order, raising where eager NumPy does, after the writes
                    # before it; from the caller's arrays as they were (the compiled
                    # run may have written them already: they were written twice)
                    for target, copy in kept or ():
                        target[...] = copy
                    self.session.add("fallbacks", {
                        "graph_id": entry.graph_id, "function": site.function,
                        "reason": f"run failed: {e}"})
            values = reference.execute(pending, outputs)
            # kept as its calls, for a plan of steps to run again in NumPy: a graph of
            # views only, and one that runs in NumPy because a view in it was decided on
            # an assumed layout (storage.guessed: `xc[i - 1]` of np.correlate's result),
            # whose call was traced at every call before (tdoa_correlate 1.6x slower
            # than NumPy compiled)
            kept = Recorded(leaves, pending, outputs) if tracer.steps_wanted and (
                (entry.compiled is None and not any(cpu_worthy(n) for n in pending)) or
                (entry.compiled is not None and exact_layout)) else False
            tracer.runs.append((entry, leaves, outputs, kept))
        self.session.add("kernels", {
            "name": f"graph{entry.graph_id}", "graph_id": entry.graph_id, "target": "reference",
            "function": site.function, "wall_ms": (time.perf_counter() - t1) * 1e3})
        return values

    def _run_uncompiled(self, tracer, outputs):
        """A trace past its op budget (trace/budget.py): its graphs run op by op in
        NumPy, neither looked up nor compiled (the reference path, as when a compile fails)."""
        t1 = time.perf_counter()
        pending = collect(outputs)[1]
        with tracer.suspended():
            values = reference.execute(pending, outputs)
        self.session.add("kernels", {
            "name": "over budget", "graph_id": -1, "target": "reference",
            "function": tracer.site.function, "wall_ms": (time.perf_counter() - t1) * 1e3})
        return values

    def _record_program(self, entry, program):
        """What the reports show of a compile: each kernel's source and the fused graph."""
        self._record_loops(entry, program)
        shown = set()
        for ck in program.kernels:
            k = ck.kernel
            if k.name in shown:  # the same code at several places (a loop body): once
                continue
            shown.add(k.name)
            self.session.add("kernel_sources", {
                "name": k.name, "source": k.source, "graph_id": entry.graph_id,
                "target": getattr(program, "target", "cpu"), "ptx": getattr(ck, "ptx", None),
                "ops": [{"op": label, "lineno": ln, "text": text} for label, ln, text in k.ops]})
        pos = {id(n): i for i, n in enumerate(program.nodes)}
        nodes = [{"id": i, "op": n.label, "label": n.label,
                  "kernel": program.plan.kernel_of.get(id(n), -1),
                  "inputs": [pos[id(x)] for x in n.inputs if id(x) in pos]}
                 for i, n in enumerate(program.nodes) if not n.is_leaf or i < program.n_leaves]
        self.session.add("fusion_graphs", {"graph_id": entry.graph_id, "nodes": nodes,
                                           "decisions": list(program.plan.decisions)})

    def _record_loops(self, entry, program):
        """A Python loop traced into this graph runs the same kernel once per iteration:
        say so per source line ("line 19: 100 iterations, one compiled kernel"), so the
        report shows that the loop was compiled once, not unrolled into N compiles."""
        runs, first = {}, {}
        for ck in program.kernels:
            k = ck.kernel
            runs[k.name] = runs.get(k.name, 0) + 1
            first.setdefault(k.name, k)
        for name, n in runs.items():
            if n < 2:
                continue
            k = first[name]
            label, lineno, text = k.ops[0] if k.ops else ("", 0, "")
            self.session.add("loops", {
                "graph_id": entry.graph_id, "function": program.function, "lineno": lineno,
                "text": text, "kernel": name, "iterations": n,
                "sizes_at_run_time": bool(getattr(k, "extents", None)),
                "summary": f"line {lineno}: {n} iterations, one compiled kernel ({name})"})

    def _compile(self, tracer, entry, leaves, pending, outputs):
        """(Program or None, target). A failure is recorded and the graph runs in NumPy."""
        program, target = self._compile_program(tracer, entry, leaves, pending, outputs)
        if program is not None:  # whose kernel times a deferred timing record carries
            program.graph_id, program.function = entry.graph_id, tracer.site.function
        return program, target

    def _compile_program(self, tracer, entry, leaves, pending, outputs):
        from ..backends import cpu
        if os.environ.get("NPC_BACKEND") == "reference":
            return None, "reference"
        if tracer.options.get("device") == "cuda":
            from ..backends.cuda_select import compile_for_cuda
            got = compile_for_cuda(self.session, tracer, entry, leaves, pending, outputs,
                                   tracer.compile_deadline())
            if got is not None:
                return got
        if not cpu.AVAILABLE:
            return None, "reference"
        if not any(cpu_worthy(n) for n in pending):
            return None, "reference"
        try:
            return cpu.compile_program(leaves, pending, outputs), "cpu"
        except Exception as e:
            self.session.add("fallbacks", {"graph_id": entry.graph_id,
                                           "function": tracer.site.function,
                                           "reason": f"compile failed: {type(e).__name__}: {e}"})
            return None, "reference"


def record_kernel_times(session, program):
    """The kernel times of the run that just ended (CPU programs time their kernels as
    they run; CUDA programs have none here: cuda_runtime records them as they finish)."""
    for program in getattr(program, "programs", (program,)):   # a StepPlan's, each
        if program.last_timings:
            target = getattr(program, "target", "cpu")
            moved = getattr(program, "kernel_bytes", {})
            for name, ms in program.last_timings:
                session.add("kernels", {"name": name, "graph_id": program.graph_id,
                                        "target": target, "function": program.function,
                                        "wall_ms": ms, "bytes": moved.get(name, 0)})


def cpu_worthy(node):
    """Graphs with nothing to fuse (only NumPy steps) are not worth a compile."""
    return node.label not in VIEW_LABELS


ENGINE = Engine()


# (the caller's arrays a graph with NumPy steps writes, copied before its run: at most
# this much together; past it a NumPy step's error is raised from the compiled run)
KEPT_BYTES = 32 << 20


def _copies_for_a_rerun(tracer, program):
    """Copies of the caller's arrays the graph writes, where a run may stop midway
    (ProgramBase.may_stop_midway: a NumPy step's error, or values a kernel flagged,
    after our kernels wrote some of those arrays; the graph then runs again in NumPy's
    order); None where they are too large to copy."""
    if not program.may_stop_midway():
        return []
    kept, total = [], 0
    for target in tracer.pending_targets():
        if type(target) is not np.ndarray:
            return None
        total += target.nbytes
        if total > KEPT_BYTES:
            return None
        kept.append((target, target.copy()))
    return kept
