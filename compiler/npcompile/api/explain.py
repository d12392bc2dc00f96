"""npcompile.explain(fn)(*args): what tracing saw (graphs, breaks with lines and hints,
captured operations), without changing what fn computes."""
import numpy as np

from ..cell_names import location
from ..dtypes import untraced_reason
from .jit import Jitted
from .purity import Watch
from .replay import arg_key
from ..trace.budget import TraceBudgetExceeded


class Explanation:
    def __init__(self, tracer, result, report=None, replay=""):
        self.graph_count = tracer.flush_index
        self.graph_break_count = len(tracer.breaks)
        self.breaks = list(tracer.breaks)
        self.ops = list(tracer.ops)
        self.result = result
        self.report = report  # the profiler's report of this call alone (a dict), or None
        self.replay = replay  # whether calls like this one skip tracing, and why not
        self.loops = list(tracer.loop_notes)  # loops whose body compiled once
        self.budget = tracer.budget_reason    # why the trace stopped compiling, or None

    def _repr_mimebundle_(self, include=None, exclude=None):
        """In a notebook: the same report as %%npcompile --report, of this call only."""
        from ..report import report_bundle
        return report_bundle(self.report, repr(self))

    def _repr_html_(self):
        return self._repr_mimebundle_().get("text/html")

    def __repr__(self):
        lines = [f"graphs: {self.graph_count}, graph breaks: {self.graph_break_count}, "
                 f"ops captured: {len(self.ops)}"]
        for b in self.breaks:
            lines.append(f"  break at {location(b.filename, b.lineno)}: {b.reason}")
            if b.code:
                lines.append(f"      {b.code}")
            lines.append(f"      hint: {b.hint}")
        for note in self.loops:
            lines.append(f"  loop at {note}")
        if self.budget:
            lines.append(f"budget: {self.budget}")
        if self.replay:
            lines.append(f"replay: {self.replay}")
        return "\n".join(lines)


def explain(fn):
    jitted = fn if isinstance(fn, Jitted) else Jitted(fn)

    def run(*args, **kwargs):
        from ..report import last_trace_report
        key, values = arg_key(args, kwargs)
        watch = Watch(jitted.fn, values) if jitted.replay and key is not None else None
        try:
            result, tracer = jitted.trace_call(args, kwargs, watch)
            plan = tracer.plan if key is not None else _undescribed(jitted, args, kwargs)
        except TraceBudgetExceeded as e:
            # past a budget before the call did anything: the jit would run it again as
            # plain NumPy. Traced again with no restart, the explanation shows the breaks
            # up to the budget (the rest runs untraced), where it raised the internal stop
            result, tracer = jitted.trace_call(args, kwargs)
            plan = f"{e.reason}; calls like this one run as plain NumPy"
        return Explanation(tracer, result, last_trace_report(), replay_note(jitted, plan))
    return run


def _undescribed(jitted, args, kwargs):
    """Why the arguments have no replay key, in words."""
    names = jitted._names(len(args)) + list(kwargs)
    for name, a in zip(names, list(args) + list(kwargs.values())):
        why = untraced_reason(a.dtype) if isinstance(a, np.ndarray) else None
        if why:
            return f"the argument {name} is an array of dtype {a.dtype}, not traced: {why}"
    return "an argument is neither an array nor a number, string or tuple of them"


def replay_note(jitted, plan):
    """Whether later calls like this one replay (api/replay.py), in words."""
    if not jitted.replay:
        return "off (replay=False, NPC_REPLAY=0, or not a plain Python function)"
    if isinstance(plan, str):
        return f"off for calls like this one: {plan}"
    if plan is None:
        return "not decided by this call (it ran under a profiler, or with aliased arguments)"
    return "on: later calls with the same argument layout run the compiled program " \
           "without tracing"
