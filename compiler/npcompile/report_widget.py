"""npcompile.widget(): the session's report as a live, interactive notebook widget, built on
anywidget (JupyterLab 4, Notebook 7 and VS Code run it as it is, with no extension of
ours). The kernel sends a new report whenever records arrive, at most every
MIN_INTERVAL_S while a cell runs and once more when it ends; the page
(assets/report_widget.js) shows it in tabs, filters by function or cell, and shows the
row clicked: a break's line and hint, a kernel's generated code with the user's lines
it computes and its timings, a recompile's guard diff, compiled against eager time.

Where no widget can run (nbconvert's HTML, GitHub, a kernel without comms) the same
output carries the profiler's static report as text/html and text/plain, and the report
itself as application/vnd.npcompile.report+json."""
import math
import pathlib
import threading
import time
import weakref

from . import auto_mode
from .report import display_report, profiler
from .records import SESSION

_ASSETS = pathlib.Path(__file__).parent / "assets"
# a new report at most this often while records arrive (each is the whole report,
# kernel sources included: a hot loop adds records at every call)
MIN_INTERVAL_S = 0.25

_LIVE = weakref.WeakSet()   # the widgets that follow the session
# when they may be sent a report next, and whether records came since the last one
_DUE = [0.0]
_STALE = [False]
_CLASS = []
_HOOKED = []


def available():
    """(True, '') where a widget can be made here, else (False, why)."""
    if profiler() is None:
        return False, "the native profiler is not available (npcompile._native did not import)"
    try:
        import anywidget  # noqa: F401
    except ImportError:
        return False, "anywidget is not installed (`make run` installs it)"
    return True, ""


def in_kernel():
    """Whether a Jupyter kernel shows what is displayed here (a widget needs one)."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    return getattr(get_ipython(), "kernel", None) is not None


def show(since_trace=None, last=True, as_json=False):
    """What %%npcompile --report and %npcompile_report show: in a kernel the live widget
    (its output carrying the static report for where no widget runs), elsewhere or as
    JSON the static report (report.display_report)."""
    if as_json or not in_kernel() or not available()[0]:
        display_report(since_trace, last, as_json)
        return
    from IPython.display import display
    if since_trace is None and last:
        since_trace = SESSION.total("traces") - 1
    display(widget(since_trace))


def widget(since_trace=None, live=True):
    """The report widget of the session (since_trace: of the traces from that index on,
    a cell's and those after it); live: it follows new records."""
    ok, why = available()
    if not ok:
        raise RuntimeError(f"npcompile.widget(): {why}")
    return _widget_class()(since_trace, live)


def _finite(obj):
    """The report with non-finite numbers as None: JSON has no Infinity (a speedup over
    an eager run of 0 ms), and the page's parser refused the whole message."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_finite(v) for v in obj]
    return obj


_COPY = []


def copy_gbps():
    """This machine's memory bandwidth as NumPy copies (read and write) 64 MB, the best
    of three, measured once: the yardstick of a kernel's share of bandwidth."""
    if not _COPY:
        import numpy as np
        src = np.ones(8 << 20)
        dst = np.empty_like(src)
        best = min(_timed(np.copyto, dst, src) for _ in range(3))
        _COPY.append(2 * src.nbytes / best / 1e9)
    return _COPY[0]


def _timed(fn, *args):
    t0 = time.perf_counter()
    fn(*args)
    return time.perf_counter() - t0


def _traces_since(since):
    """The profiler's count of last traces: None for all, 0 for none yet."""
    return None if since is None else max(0, SESSION.total("traces") - since)


def _on_record(kind, record):
    """Every record added (a replayed call adds some): a clock read and a comparison,
    until the next refresh is due. Comms are the kernel's main thread's (a CUDA timing
    thread records too)."""
    if time.monotonic() >= _DUE[0] and threading.current_thread() is threading.main_thread():
        _refresh_all()
    else:
        _STALE[0] = True


def _after_cell(*_):
    if _STALE[0]:
        _refresh_all()


def _refresh_all():
    _DUE[0] = time.monotonic() + MIN_INTERVAL_S
    _STALE[0] = False
    for w in list(_LIVE):
        w.refresh()


def _hook():
    """One sink for all widgets, and a last refresh after each cell (its final records
    may have come within MIN_INTERVAL_S of an earlier refresh)."""
    if _HOOKED:
        return
    _HOOKED.append(True)
    SESSION.sinks.append(_on_record)
    try:
        from IPython import get_ipython
        shell = get_ipython()
    except ImportError:
        shell = None
    if shell is not None:
        shell.events.register("post_run_cell", _after_cell)


def _widget_class():
    if _CLASS:
        return _CLASS[0]
    import anywidget
    import traitlets

    class ReportWidget(anywidget.AnyWidget):
        _esm = (_ASSETS / "report_widget.js").read_text()
        _css = (_ASSETS / "report_widget.css").read_text()
        report = traitlets.Dict().tag(sync=True)
        auto = traitlets.Bool(False).tag(sync=True)   # %npcompile on|off
        live = traitlets.Bool(True).tag(sync=True)
        copy_gbps = traitlets.Float(0.0).tag(sync=True)   # copy_gbps()

        def __init__(self, since_trace=None, live=True):
            self._since = since_trace
            # the first report goes with the comm's opening state
            super().__init__(report=_finite(profiler().report(_traces_since(since_trace))),
                             auto=auto_mode.is_on(), live=bool(live), copy_gbps=copy_gbps())
            self.observe(self._auto_switched, names="auto")
            if live:
                _hook()
                _LIVE.add(self)

        def refresh(self):
            """Send the report as it is now."""
            self.report = _finite(profiler().report(_traces_since(self._since)))

        def _auto_switched(self, change):
            if change["new"] != auto_mode.is_on():
                auto_mode.set_auto(change["new"])

        def _repr_mimebundle_(self, **kwargs):
            got = super()._repr_mimebundle_(**kwargs)   # anywidget's: (data, metadata)
            data, meta = got if isinstance(got, tuple) else (got, None)
            static = profiler().mime_bundle(_traces_since(self._since))
            data = {**static, **data, "text/plain": static["text/plain"]}
            return (data, meta) if meta is not None else data

    _CLASS.append(ReportWidget)
    return ReportWidget
