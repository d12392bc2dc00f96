"""npcompile.jit: trace a function's NumPy code on every call; graphs are cached by
structure and guards, so a repeated call only re-traces (microseconds) and runs."""
import functools
import inspect
import os
import sys
import time
import types

import numpy as np

from ..exec.engine import ENGINE, SiteInfo, record_kernel_times
from ..dtypes import DEVICE_TYPES, untraced_reason
from ..records import SESSION
from ..trace.breaks import user_frame
from ..trace import budget
from ..trace.budget import TraceBudgetExceeded
from ..trace.lazy_array import LazyArray
from ..trace.loop_values import LoopValueRefused
from .dynamic_args import DynamicFloats
from ..trace.masked_select import materialize_all
from ..trace.tracer import Tracer, concretize, current, is_traceable
from . import dask_chunks, fp_errors, loop_rewrite, path_choice
from .loop_runner import LoopRunner
from .path_choice import PathChooser
from .purity import Watch, closure_guards
from .replay import Plan, arg_key, choice_key, make_plan
from .step_plan import make_step_plan
from ..trace_core import core

# the C base of a jitted call (compiler/trace_core/JitCall.hpp): calls the path choice
# granted to plain NumPy run it from C; every other call is Jitted._call
_CALL_BASE = getattr(core, "JitCall", object)

DEVICES = ("cpu", "cuda")


# Plans kept per function: one per argument layout seen (exact shapes), the oldest
# dropped first, so a function called on ever-new sizes does not grow without bound.
MAX_PLANS = 64


def check_options(device, fullgraph, dynamic):
    if device not in DEVICES:
        raise ValueError(f"npcompile: device must be one of {DEVICES}, not {device!r}")
    if dynamic not in (None, True, False):
        raise ValueError(f"npcompile: dynamic must be None, True or False, not {dynamic!r}")
    return {"device": device, "fullgraph": bool(fullgraph), "dynamic": dynamic}


def replay_default():
    return os.environ.get("NPC_REPLAY", "1") != "0"


def loops_default():
    return os.environ.get("NPC_LOOPS", "1") != "0"


# a plan of steps (api/step_plan.py) whose checks fail in this many calls in a row is
# dropped, and calls like them are traced: a replay that fails at a loop's result ran the
# loop twice (once before the check, once in the trace)
STEP_MISSES = 3


class Jitted(_CALL_BASE):
    def __init__(self, fn, device="cpu", fullgraph=False, dynamic=None, replay=None,
                 choose=None, loops=None):
        if not callable(fn):
            raise TypeError(f"npcompile.jit needs a function, got {type(fn).__name__}")
        functools.update_wrapper(self, fn)
        self.fn = fn
        self.original = fn     # the user's own (self.fn may become its loop rewrite)
        self._init_args = (device, fullgraph, dynamic, replay, choose, loops)
        self.options = check_options(device, fullgraph, dynamic)
        # what the plain-NumPy path runs (api/path_choice.py): on the GPU its results go
        # to the device, so that either path returns what device="cuda" promises
        self._eager = fn if device == "cpu" else _results_on_device(fn)
        self._settle_device = _gpu_synchronize if device == "cuda" else None
        # what the compiled path hands back: on the GPU, values a graph computed in NumPy
        # (the compile budget's rest of a call, a loop traced as written) are DeviceArrays
        # too, held on the host (a stencil's result came back an ndarray on every call)
        self._returned = _same if device == "cpu" else _compiled_on_device
        self._site_name = getattr(fn, "__qualname__", repr(fn))
        # replay needs a plain Python function: its code is what purity.py inspects
        self.replay = (replay_default() if replay is None else bool(replay)) and \
            isinstance(fn, types.FunctionType)
        # fullgraph asks for the compiled path, errors included: never swapped for NumPy
        choose = path_choice.enabled_default() if choose is None else bool(choose)
        self.chooser = PathChooser(SESSION, self._site_name) if (
            choose and not fullgraph) else None
        self._plans = {}        # argument key -> replay.Plan
        self._floats = DynamicFloats(fn)  # float arguments taken as run-time values
        self._over_budget = {}  # argument key -> ENGINE.generation: plain NumPy (no chooser)
        # argument key -> (calls over the break budget by their new graphs, generation)
        self._budget_tries = {}
        self._choosing = None   # the path choice's key of the call under way
        self.replay_refusals = {}  # argument key -> why calls like it are traced every time
        self._step_misses = {}  # argument key -> plans of steps whose checks failed in a row
        self._untraced_seen = set()  # (argument name, dtype) of untraced arrays reported
        try:
            self._params = list(inspect.signature(fn).parameters.values())
        except (TypeError, ValueError):
            self._params = []
        self._names_by_count = {}
        self.loop_body = False   # a loop's body (api/loop_runner.py): replays go unreported
        # positions of 0-d array arguments that stand for NumPy scalars (a loop body's
        # carried scalars): traced with a scalar's semantics (`s += 1` rebinds)
        self.scalar_positions = frozenset()
        # a loop body's loop values, 0-d arrays standing for Python numbers (its loop
        # variable read as a number, carried numbers): trace/loop_values.Spec, or None
        self.loop_values = None
        self.value_refused = None   # why it cannot be (then the loop runs as written)
        self.last_graph_ids = []
        # loops whose body compiles once (api/loop_rewrite.py): the traced function is
        # the rewritten one, the NumPy path (self._eager) stays the user's own
        self.loop_sites = []
        self.loops_refusal = ""
        if (loops_default() if loops is None else bool(loops)) and not fullgraph:
            try:
                new, sites = loop_rewrite.rewrite(fn, lambda s: LoopRunner(s, self, Jitted))
            except Exception as e:   # the function runs as written, traced as before
                new, sites = None, f"the rewrite failed: {type(e).__name__}: {e}"
            if new is not None:
                self.fn, self.loop_sites = new, sites
            else:
                self.loops_refusal = sites
        # the path choice's third path: the loops compiled, the rest plain NumPy (on
        # the host only: a GPU loop would copy its values there and back per call)
        self._offers_loops = bool(self.loop_sites) and device == "cpu"
        # device="cuda": the function compiled for the CPU, where that backend is built
        # and a GPU runs the compiled path (without one, that path is the CPU's already):
        # api/path_choice.py's host path, asked at the first call, made at its own first
        self._offers_host = None if device == "cuda" else False
        self._host = None
        # an np.errstate(... "raise") of the function's own: every call runs as NumPy
        self._fp_scope = fp_errors.raising_scope(fn)
        self._fp_reported = set()
        self._lent = {}         # path choice key -> (raw argument key, calls granted)
        self._grant_epoch = ENGINE.generation
        if _CALL_BASE is not object:   # a function that raises on its own is never granted
            self._numpy_path(self._eager if self.chooser is not None and self._fp_scope is None
                             else None, fp_errors.handling, fp_errors.QUIET)

    def _report_untraced(self, args, names, function):
        """An array argument whose dtype is not traced (byte-swapped, long double, strings)
        runs in NumPy: said once per argument and dtype, as a fallback, not silently.
        Whether there was one."""
        found = False
        for a, name in zip(args, names):
            if type(a) is np.ndarray and not is_traceable(a):
                found = True
                why = untraced_reason(a.dtype)
                if why and (name, a.dtype) not in self._untraced_seen:
                    self._untraced_seen.add((name, a.dtype))
                    SESSION.add("fallbacks", {
                        "graph_id": -1, "function": function,
                        "reason": f"the argument {name} ({a.dtype}) is not traced: {why}; "
                                  f"what is computed from it runs in NumPy"})
        return found

    def __reduce__(self):
        """Pickled by reference, like the function it wraps (multiprocessing sends it so):
        an @jit function of a module is found again by its name there; any other
        jitted function is its wrapped function (pickled by reference too) jitted again
        on the other side. Compiled code and records are not pickled."""
        obj = sys.modules.get(getattr(self.original, "__module__", None) or "")
        for part in (getattr(self.original, "__qualname__", "") or "").split("."):
            obj = getattr(obj, part, None)
        if obj is self:
            return self.original.__qualname__
        return (_rejit, (self.original, self._init_args))

    def _names(self, nargs):
        """Names of the positional arguments (what reports call the inputs), per count."""
        names = self._names_by_count.get(nargs)
        if names is None:
            names = self._names_by_count[nargs] = self._compute_names(nargs)
        return names

    def _compute_names(self, nargs):
        names = []
        for i in range(nargs):
            if i < len(self._params) and self._params[i].kind in (
                    inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD):
                names.append(self._params[i].name)
            else:
                names.append(f"args[{i}]")
        return names

    def _call(self, *args, **kwargs):
        """A call, but one the C base ran as a grant to the NumPy path."""
        if current() is not None:  # called from traced code: inline into that trace
            return self.fn(*args, **kwargs)
        if dask_chunks.has_dask_array(args, kwargs):   # Dask's graph, its chunks compiled
            return dask_chunks.call(self, args, kwargs)
        raising = self._fp_scope or fp_errors.raising_now()
        if raising is not None:     # NumPy's FloatingPointError is NumPy's alone
            return self._numpy_for_fp_errors(raising, args, kwargs)
        if self.chooser is None:
            return self._returned(self._compiled_call(args, kwargs))
        raw = choice_key(args, kwargs)
        key = self._choosing = self._floats.choice_key(raw, args)
        generation = ENGINE.generation
        if self._lent:
            self._count_lent(generation)
        path = self.chooser.next_path(key, generation, self._third_path, args, kwargs)
        if path == "settled":   # past the op budget: plain NumPy for good, untimed
            self._grant(key, raw, kwargs, -1)
            return self._eager(*args, **kwargs)
        untimed = path_choice.UNTIMED_OF.get(path)
        if untimed is not None:   # the chosen path, far from the next recheck
            if untimed == "numpy":
                self._grant(key, raw, kwargs, self.chooser.lend_untimed(key, generation))
            return self._run_path(untimed, args, kwargs)
        t0 = time.perf_counter()
        result = self._run_path(path, args, kwargs)
        if self._settle_device is not None and path == "compiled":
            self._settle_device()    # the kernels' time, not only their launches
        self.chooser.record(key, path, time.perf_counter() - t0, generation)
        return result

    def _grant(self, key, raw, kwargs, n):
        """The next n calls with exactly these arguments (raw: their key; -1: all calls)
        run plain NumPy from the C base, where it is built, counted as calls of the path
        choice's `key` at its next call in Python (_count_lent). The raw key, not `key`:
        the C base looks up the call's own key, where `key` may leave out the values of
        float arguments (api/dynamic_args.py). One grant per `key`: a new one revokes
        the last (a time step `t` that changes at every call gets a grant it never uses)."""
        if not n or kwargs or _CALL_BASE is object or raw[:1] == ("coarse",):
            return
        old = self._lent.pop(key, None)
        if old is not None and old[0] != raw:
            self._grant_numpy(old[0], 0)
        self._grant_numpy(raw, n)
        if n > 0:
            self._lent[key] = (raw, n)

    def _count_lent(self, generation):
        """The calls the C base ran on grants since the last call in Python, counted as
        the path choice's calls (its rechecks come after so many calls). Counted here,
        not when granted: a grant whose arguments do not come again (a float argument
        that changes) is not used, and counted in advance it brought the next recheck
        on at once."""
        if self._grant_epoch != generation:   # npcompile.reset(): what they counted for
            self._lent.clear()
            self._grant_epoch = generation
            return
        for key, (raw, n) in list(self._lent.items()):
            left = self._granted(raw) or 0    # (None: dropped past 64 keys, all used)
            self.chooser.count_calls(key, n - left, generation)
            if left:
                self._lent[key] = (raw, left)
            else:
                del self._lent[key]

    def _numpy_for_fp_errors(self, raising, args, kwargs):
        """The call as plain NumPy, under floating-point error handling that raises
        (api/fp_errors.py), said once per function and mode in the report."""
        if raising not in self._fp_reported:
            self._fp_reported.add(raising)
            where = "in its code" if raising == self._fp_scope else "in force at the call"
            SESSION.add("fallbacks", {"graph_id": -1, "function": self._site_name,
                                      "reason": fp_errors.reason(where, raising)})
        return self._eager(*args, **kwargs)

    def _run_path(self, path, args, kwargs):
        if path == "numpy":
            return self._eager(*args, **kwargs)
        if path == "loops":
            return self._loops_call(args, kwargs)
        if path == "host":
            return self._host_call(args, kwargs)
        return self._returned(self._compiled_call(args, kwargs))

    def _third_path(self, args, kwargs):
        """The path offered beside compiled and plain NumPy for this call: its loops
        compiled (a function with loops, on the host), the function compiled for the
        host's CPU (device="cuda" with host arrays, where the CPU backend is built: a
        DeviceArray argument would be copied there and back, and written back in
        place), or none."""
        if self._offers_loops:
            return "loops"
        if self._offers_host is None:
            self._offers_host = _host_backends()
        if not self._offers_host or any(
                type(a) in DEVICE_TYPES for a in (*args, *kwargs.values())):
            return None
        return "host"

    def _host_call(self, args, kwargs):
        """The host path: the same function jitted for the CPU (its own replay and
        loops, no path choice of its own), its results handed to the GPU as the NumPy
        path's are (the compiled path's own hand-over: a result nothing else holds is not
        copied)."""
        if self._host is None:
            _, _, dynamic, replay, _, loops = self._init_args
            self._host = Jitted(self.original, "cpu", False, dynamic, replay, False, loops)
        return self._returned(self._host._compiled_call(args, kwargs))

    def _compiled_call(self, args, kwargs):
        watch = key = spec = None
        given = args
        if self.replay or self._over_budget:
            key, values = arg_key(args, kwargs)
        if self._over_budget and self._over_budget.get(key) == ENGINE.generation:
            return self._eager(*args, **kwargs)
        if self.replay and key is not None:
            plan = self._plans.get(key)
            if plan is None and not self.loop_body:   # (a loop body has its loop values)
                taken = self._floats.taken(key, args, kwargs, self._plans)
                if taken is not None:   # float arguments as run-time values
                    args, key, values, spec = taken
                    plan = self._plans.get(key)
            if plan is not None and plan.holds(self.fn, ENGINE.generation):
                done, result = replay_call(self, plan, values)
                if done:
                    self.last_graph_ids = [getattr(plan.program, "graph_id", -1)]
                    self.step_plan_held(key)
                    return result
                if self.step_plan_missed(key, plan):
                    watch = Watch(self.fn, values)
            elif key not in self.replay_refusals:
                watch = Watch(self.fn, values)
        try:
            if spec is not None:
                try:
                    self.loop_values = spec
                    result, tracer = self.trace_call(args, kwargs, watch)
                except LoopValueRefused as e:  # nothing of it ran: traced as written
                    self._floats.refused(key, spec, str(e))
                    args, spec = given, None
                    key, values = arg_key(args, kwargs)
                    watch = Watch(self.fn, values) if key not in self.replay_refusals else None
                finally:
                    self.loop_values = None
            if spec is None:
                result, tracer = self.trace_call(args, kwargs, watch)
        except TraceBudgetExceeded as e:  # nothing happened yet: run it as plain NumPy
            if spec is not None:    # with the floats as the caller gave them
                args = given
                key = arg_key(args, kwargs)[0]
            self._settle_over_budget(key, args, kwargs, e.reason + "; the call ran again "
                                     "as plain NumPy", e.retry)
            return self._eager(*args, **kwargs)
        self.last_graph_ids = tracer.graph_ids
        if tracer.budget_reason is not None:
            self._settle_over_budget(key, args, kwargs, tracer.budget_reason + (
                f"; the rest of the call ran "
                f"{'as plain NumPy, untraced' if tracer.untraced_rest else 'uncompiled'} "
                f"(it could not start again: "
                f"{tracer.irreversible or 'what it did is not known'})"),
                tracer.budget_retry)
        else:
            if self._budget_tries:   # within it: a later overrun counts from one again
                self._budget_tries.pop(key, None)
            if watch is not None and not tracer.loops_settling:
                self._keep_plan(key, tracer.plan)
                self._floats.kept(key, args, spec, tracer.plan)
        return result

    def step_plan_held(self, key):
        """A plan replayed: its misses in a row (step_plan_missed) start again."""
        if self._step_misses:
            self._step_misses.pop(key, None)

    def step_plan_missed(self, key, plan):
        """A plan of steps whose checks failed (another branch, another count): this
        call's trace makes the plan for the next one, unless they keep failing (data
        that changes what Python reads at every call), where each replay's work up to
        the failed check is lost. Whether this call's trace makes the next plan (a plain
        plan, which has no checks, failed on values NumPy must handle: no)."""
        if type(plan) is Plan or key in self.replay_refusals:
            return False
        misses = self._step_misses[key] = self._step_misses.get(key, 0) + 1
        if misses < STEP_MISSES:
            return True
        self._plans.pop(key, None)
        self.replay_refusals[key] = (
            f"what its plan of steps reads came out otherwise in {misses} calls in a row "
            f"(the values Python reads change from call to call)")
        return False

    def _loops_call(self, args, kwargs):
        """The path choice's loops path: the function's own code as plain NumPy on its
        arguments, each of its loops compiled on its own (api/path_choice.py)."""
        return self.trace_call(args, kwargs, loops_only=True)[0]

    def _settle_over_budget(self, key, args, kwargs, reason, retry=False):
        """Calls with these argument layouts run as plain NumPy from now on (until
        npcompile.reset()): their trace outgrew the op budget (trace/budget.py). Unless
        `retry`: it was over only by the graphs it compiled, and the next calls like it
        are traced again, up to budget.RETRIES times."""
        if key is None:    # not worked out for this call (no replay), or not describable
            key = arg_key(args, kwargs)[0]
        if key is None:    # (the path choice's coarse description)
            key = choice_key(args, kwargs)
        tries, generation = self._budget_tries.get(key, (0, -1))
        tries = (tries if generation == ENGINE.generation else 0) + 1
        self._budget_tries[key] = (tries, ENGINE.generation)
        if retry and tries <= budget.RETRIES:
            SESSION.add("path_choices", {
                "function": self._site_name, "choice": "numpy", "budget": True,
                "retry": True, "reason": reason + "; its graphs were new, so the next "
                "call like it is traced again, with them compiled"})
            if self.chooser is not None:
                self.chooser.retry(self._choosing, ENGINE.generation)
            return
        reason += ", and its later calls like it run as plain NumPy"
        if tries > 1:
            reason += f" (over it in {tries} calls in a row, the first compiling its graphs)"
        SESSION.add("path_choices", {"function": self._site_name, "choice": "numpy",
                                     "reason": reason, "budget": True})
        if self.chooser is not None:    # under the key this call was chosen by
            self.chooser.settle(self._choosing, ENGINE.generation)
        elif key is not None:
            self._over_budget[key] = ENGINE.generation

    def record_replay(self, plan):
        """A loop body's iteration replayed by api/loop_runner.py: its kernel times."""
        record_kernel_times(SESSION, plan.program)

    def call_body(self, state):
        """One iteration of a loop body (api/loop_runner.py): the values it binds."""
        return self._compiled_call(tuple(state), {})

    def _keep_plan(self, key, plan):
        if isinstance(plan, str):
            self.replay_refusals[key] = plan
        elif plan is not None:
            if len(self._plans) >= MAX_PLANS:
                del self._plans[next(iter(self._plans))]
            self._plans[key] = plan

    def lower(self, *args, **kwargs):
        """Run once on these arguments and return what was compiled: `.kernels`, each with
        name, target, source (the exact text compiled) and the graph it came from."""
        from ..exec.engine import ENGINE
        _, tracer = self.trace_call(args, kwargs)
        return Lowered(ENGINE, tracer.graph_ids)

    def trace_call(self, args, kwargs, watch=None, loops_only=False):
        """Trace one call. With a watch (api/purity.py), tracer.plan is then the replay
        plan this call makes, a refusal in words, or None. loops_only: the function's own
        code runs as plain NumPy on its arguments, its loops compiled on their own."""
        frame = user_frame(2)
        site = SiteInfo(ENGINE.function_site(self.fn), self._site_name,
                        frame.f_code.co_filename if frame else "<unknown>",
                        frame.f_lineno if frame else 0)
        tracer = Tracer(site, self.options, ENGINE)
        tracer.loops_only = loops_only
        # a call that may become a plan of steps records them (trace/steps.py); the others
        # (the GPU, a call traced without a watch) do not pay for it
        tracer.steps_wanted = watch is not None and self.options["device"] == "cpu"
        if watch is not None and self.options["device"] == "cpu":
            # past the op budget the call may start again as plain NumPy if it has had
            # no effect yet (the watch sees the user's code, arguments are arrays and
            # numbers: arg_key described them; a closure holding an object could be
            # changed unseen); the plain function returns what the jit's host path does
            tracer.can_restart = lambda: watch.effect is None and \
                not isinstance(closure_guards(self.fn), str)
        SESSION.add("traces", {"function": site.function, "filename": site.filename,
                               "lineno": site.lineno})
        try:
            return self._traced(tracer, site, args, kwargs, watch, loops_only)
        finally:
            ENGINE.record_trace_end(tracer)

    def _traced(self, tracer, site, args, kwargs, watch, loops_only):
        """trace_call's body, between its trace's start and end records."""
        # float arguments taken as run-time values (api/dynamic_args.py)
        floats = self.loop_values if not self.loop_body else None
        with tracer:
            names = self._names(len(args))
            if floats is not None:
                # a float argument now a run-time value (api/dynamic_args.py): what the
                # recompile it causes is said to be, in the report
                names = [f"{n} (a float argument, now read at run time)"
                         if i in floats.positions else n for i, n in enumerate(names)]
            wargs = [tracer.wrap_input(a, n) if is_traceable(a) and not loops_only else a
                     for a, n in zip(args, names)]
            tracer.untraced_arrays = self._report_untraced(args, names, site.function)
            for i in self.scalar_positions:
                wargs[i]._scalar = True
            if self.loop_values is not None:
                tracer.take_loop_values(self.loop_values, wargs)
            wkwargs = {k: tracer.wrap_input(v, k) if is_traceable(v) and not loops_only else v
                       for k, v in kwargs.items()}
            try:
                if watch is None:
                    result = self.fn(*wargs, **wkwargs)
                else:
                    with watch:
                        result = self.fn(*wargs, **wkwargs)
            except LoopValueRefused:
                raise   # nothing of the body ran (trace/loop_values.py)
            except BaseException as e:
                if floats is not None and isinstance(e, Exception):
                    # float arguments as NumPy scalars (api/dynamic_args.py) raised where
                    # the floats did not (`s.is_integer()`): nothing lands, and the call
                    # runs again with its floats
                    tracer.refuse_loop_values(f"with its floats as NumPy scalars the call "
                                              f"raised {type(e).__name__}")
                if tracer.restarting:   # the budget's end of the trace, whatever the
                    # user's code made of it: nothing pending lands, the call starts again
                    raise e if isinstance(e, TraceBudgetExceeded) else \
                        tracer.budget_exceeded() from None
                earlier = finish_after_error(tracer)
                if earlier is not None and isinstance(e, Exception):
                    raise earlier from None
                raise
            if tracer.restarting:       # the user's code swallowed the budget's exception
                raise tracer.budget_exceeded()
            del wargs, wkwargs
            if tracer.loop_values is not None:
                tracer.check_loop_values(result)
            # a returned x[mask] is its compact array now, before the last flush, as the
            # plan of steps that replays this call makes it (api/step_plan.py)
            tracer.returned_at = len(tracer.steps)
            result = materialize_all(result)
            tracer.flush()
            tracer.plan = None if watch is None else make_plan(
                self.fn, tracer, result, watch, ENGINE.generation,
                steps=make_step_plan if tracer.steps_wanted else None)
            result = concretize(result)  # plain NumPy values leave the trace
        return result, tracer


class LoweredKernel:
    __slots__ = ("name", "target", "source", "ptx", "graph_id", "ops")

    def __init__(self, name, target, source, graph_id, ops, ptx=""):
        self.name, self.target, self.source = name, target, source
        self.graph_id, self.ops, self.ptx = graph_id, ops, ptx

    def __repr__(self):
        return f"<kernel {self.name} ({self.target}) of graph {self.graph_id}>"


class Lowered:
    """The kernels of the graphs one call ran (graphs run in NumPy have none)."""

    def __init__(self, engine, graph_ids):
        self.graph_ids = list(graph_ids)
        by_id = {e.graph_id: e for e in engine.cache.entries.values()}
        self.kernels = []
        self.graphs = []
        from ..backends.cuda_select import LOWERED
        for gid in self.graph_ids:
            # a CUDA program compiled without a GPU to run it comes first: it is what was asked
            for prog in (LOWERED.get(gid), by_id[gid].compiled if gid in by_id else None):
                if prog is None:
                    continue
                self.graphs.append(prog)
                target = getattr(prog, "target", "cpu")
                for ck in prog.kernels:
                    k = ck.kernel
                    self.kernels.append(LoweredKernel(k.name, target, k.source, gid, list(k.ops),
                                                      getattr(ck, "ptx", "")))

    def __repr__(self):
        return f"<lowered: {len(self.graph_ids)} graphs, {len(self.kernels)} kernels>"


def finish_after_error(tracer):
    """The user's code raised: what ran before the error stays done, as in eager NumPy
    (in-place writes land in the user's arrays). An error that work still pending
    raises (NumPy's, the graph rerun in NumPy) came earlier in the program than the
    user's: eager NumPy would have stopped there. It is returned, for the caller to
    raise instead of the user's."""
    try:
        tracer.flush()
    except Exception as e:   # noqa: BLE001 - NumPy's error from an earlier operation
        return e
    return None


def replay_call(jitted, plan, values):
    """(True, result) when the plan ran; (False, None) when this call must be traced
    (a kernel flagged values NumPy must handle, or aliased arguments)."""
    t0 = time.perf_counter()
    try:
        result = plan.run(values)
    except Exception:
        return False, None
    if jitted.loop_body:   # one record per iteration would bury the report
        record_kernel_times(SESSION, plan.program)
        return True, result
    f = sys._getframe(2)
    # one record per replay, made at its end, with its length (a start and an end record
    # would cost every replayed call a second record)
    SESSION.add("traces", {"function": jitted._site_name, "filename": f.f_code.co_filename,
                           "lineno": f.f_lineno, "replay": True,
                           "ms": (time.perf_counter() - t0) * 1e3})
    record_kernel_times(SESSION, plan.program)
    return True, result


dask_chunks.JITTED[0] = Jitted     # what a Dask worker's chunk runners are

if _CALL_BASE is object:   # no C core: every call is the Python one
    Jitted.__call__ = Jitted._call


def _results_on_device(fn):
    from ..backends.cuda_runtime import available
    from ..backends.device_array import results_in

    @functools.wraps(fn)
    def numpy_on_device(*args, **kwargs):
        if not available()[0]:      # no GPU: NumPy's types, as the compiled path gives
            return fn(*args, **kwargs)
        # the result goes straight into the box: a name holding it here as well made
        # every array look held by someone else, and each was copied (tanh_diag 0.86x)
        return results_in([fn(*args, **kwargs)])
    return numpy_on_device


def _same(result):
    return result


def _host_backends():
    """A GPU, and the CPU backend beside it."""
    from ..backends import cpu
    from ..backends.cuda_runtime import available
    return bool(cpu.AVAILABLE) and available()[0]


def _compiled_on_device(result):
    """The compiled path's result on the GPU as the NumPy path's (backends/device_array.py
    results_to_device: held on the host until the GPU needs them); where there is no
    GPU, device="cuda" runs on the CPU and hands back NumPy's types, as it says."""
    from ..backends.cuda_runtime import available
    if not available()[0]:
        return result
    from ..backends.device_array import results_in
    box = [result]
    del result      # the box alone holds it: see numpy_on_device
    return results_in(box)


def _gpu_synchronize():
    # without a GPU, device="cuda" ran on the CPU: nothing to wait for (the path choice
    # timing a call raised the driver's error at the user instead)
    from ..backends.cuda_runtime import available
    if available()[0]:
        from ..backends.device_array import synchronize
        synchronize()


def _rejit(fn, init_args):
    return Jitted(fn, *init_args)


def jit(fn=None, *, device="cpu", fullgraph=False, dynamic=None, replay=None, choose=None,
        loops=None):
    """Compile a NumPy function: `@npcompile.jit` or `npcompile.jit(fn, device=...)`.
    replay (default on, NPC_REPLAY=0 turns it off): calls whose arguments match an
    earlier call run its compiled program without re-running the Python body, when
    that body was seen to have no effects outside the graph (see api/replay.py).
    choose (default on, NPC_CHOOSE_PATH=0 turns it off): after timing a few calls both
    ways, arguments for which plain NumPy is faster run in plain NumPy (see
    api/path_choice.py; the report's "path_choices" says so, with both times). With
    device="cuda" the NumPy path runs on the host and its results are DeviceArrays, as
    the compiled path returns, held on the host until the GPU needs them.
    loops (default on, NPC_LOOPS=0 turns it off): a `for` loop of at least 8 iterations
    whose body is straight-line code, reading the loop variable at most as whole indices
    (y[t], A[:, k]), compiles its body once and runs it per iteration (see
    api/loop_rewrite.py; the report's "loops")."""
    if fn is None:
        return lambda f: Jitted(f, device, fullgraph, dynamic, replay, choose, loops)
    return Jitted(fn, device, fullgraph, dynamic, replay, choose, loops)


__all__ = ["jit", "Jitted", "LazyArray"]
