"""npcompile.explain(fn)(*args): what tracing saw (graphs, breaks with lines and hints,
captured operations), without changing what fn computes."""
from .jit import Jitted


class Explanation:
    def __init__(self, tracer, result, report=None):
        self.graph_count = tracer.flush_index
        self.graph_break_count = len(tracer.breaks)
        self.breaks = list(tracer.breaks)
        self.ops = list(tracer.ops)
        self.result = result
        self.report = report  # the profiler's report of this call alone (a dict), or None

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
            lines.append(f"  break at {b.filename}:{b.lineno}: {b.reason}")
            if b.code:
                lines.append(f"      {b.code}")
            lines.append(f"      hint: {b.hint}")
        return "\n".join(lines)


def explain(fn):
    jitted = fn if isinstance(fn, Jitted) else Jitted(fn)

    def run(*args, **kwargs):
        from ..report import last_trace_report
        result, tracer = jitted.trace_call(args, kwargs)
        return Explanation(tracer, result, last_trace_report())
    return run
