"""npcompile.explain(fn)(*args): what tracing saw (graphs, breaks with lines and hints,
captured operations), without changing what fn computes."""
from .jit import Jitted


class Explanation:
    def __init__(self, tracer, result):
        self.graph_count = tracer.flush_index
        self.graph_break_count = len(tracer.breaks)
        self.breaks = list(tracer.breaks)
        self.ops = list(tracer.ops)
        self.result = result

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
        result, tracer = jitted.trace_call(args, kwargs)
        return Explanation(tracer, result)
    return run
