"""The session's records as the profiler's event stream (npcompile._native.profiler),
and the views of it: the notebook report, the text report, the Chrome trace."""
from .records import SESSION

try:
    from ._native import profiler as _prof
except Exception:  # the package still traces and runs without its native half
    _prof = None

# record kind -> (profiler event type, the fields that event takes)
_EVENTS = {
    "traces": ("trace_start", ("function", "filename", "lineno")),
    "graph_breaks": ("graph_break", ("reason", "filename", "lineno", "hint", "function", "code")),
    "compiles": ("compile", ("graph_id", "function", "target", "kernels", "phases", "total_ms", "cache")),
    "recompiles": ("recompile", ("reason", "function", "filename", "lineno", "graph_id")),
    "kernels": ("kernel_run", ("name", "wall_ms", "graph_id", "target", "bytes")),
    "fallbacks": ("fallback", ("reason", "graph_id", "detail")),
    "kernel_sources": ("kernel_source", ("name", "source", "graph_id", "target", "ptx", "ops")),
    "fusion_graphs": ("fusion_graph", ("graph_id", "nodes", "decisions")),
    "transfers": ("transfer", ("direction", "bytes", "ms")),
}


def _forward(kind, record):
    spec = _EVENTS.get(kind)
    if spec is None or _prof is None:
        return
    etype, fields = spec
    _prof.emit(etype, **{k: record[k] for k in fields if k in record and record[k] is not None})


if _prof is not None:
    SESSION.sinks.append(_forward)


def _require():
    if _prof is None:
        raise RuntimeError("npcompile: the native profiler is not available (npcompile._native "
                           "did not import); run `make install`")
    return _prof


def mime_bundle(since_trace=None, last=True):
    """{'text/html', 'text/plain', 'application/vnd.npcompile.report+json'} for the last
    traced cell or call, the traces since index `since_trace`, or the whole session."""
    prof = _require()
    if since_trace is not None:
        n = max(1, len(SESSION.traces) - since_trace)
    else:
        n = 1 if last else None
    return prof.mime_bundle(n)


def display_report(since_trace=None, last=True, as_json=False):
    bundle = mime_bundle(since_trace, last)
    try:
        from IPython.display import display
    except ImportError:
        print(bundle["text/plain"])
        return
    if as_json:
        key = "application/vnd.npcompile.report+json"
        display({key: bundle[key], "text/plain": bundle["text/plain"]}, raw=True)
    else:
        display(bundle, raw=True)


def export_chrome_trace(path):
    """Write the session as Chrome trace JSON (opens in Perfetto or chrome://tracing)."""
    return _require().chrome_trace(str(path))


def session_file(directory):
    return _require().session_file(str(directory))


def clear():
    if _prof is not None:
        _prof.clear()
