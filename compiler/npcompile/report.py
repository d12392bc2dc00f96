"""The views of the session's records (records.py, stored as the native profiler's event
stream): the notebook report, the text report, the Chrome trace, and (in the kernel) the
session file npcompile-viewer follows."""
import os
import re
import sys
import threading
import time

from .records import SESSION, _prof

_named = set()  # threads whose name the profiler has (thread idents)

# Bumped on every record and on clear(): the kernel's session file is rewritten only after
# cells that changed the session, so a cell without NumPy costs nothing.
_changes = [0]


def _on_record(kind, record):
    if threading.get_ident() not in _named:     # lanes of the timeline read "MainThread"
        _named.add(threading.get_ident())
        _prof.set_thread_name(threading.current_thread().name)
    _changes[0] += 1


if _prof is not None:
    SESSION.sinks.append(_on_record)


def profiler():
    """npcompile._native.profiler, or None without the native module."""
    return _prof


def _require():
    if _prof is None:
        raise RuntimeError("npcompile: the native profiler is not available (npcompile._native "
                           "did not import); run `make install`")
    return _prof


def mime_bundle(since_trace=None, last=True):
    """{'text/html', 'text/plain', 'application/vnd.npcompile.report+json'} for the last
    traced cell or call, the traces since index `since_trace`, or the whole session."""
    prof = _require()
    SESSION.settle()
    if since_trace is not None:
        n = max(1, SESSION.total("traces") - since_trace)
    else:
        n = 1 if last else None
    return prof.mime_bundle(n)


def last_trace_report():
    """The report (a dict) of the last traced call alone, kept by whoever wants to show that
    call later (npcompile.explain); None without the native profiler."""
    SESSION.settle()
    return _prof.report(last_n_traces=1) if _prof is not None else None


def report_bundle(report, plain):
    """A notebook MIME bundle for a report dict kept earlier: the profiler's HTML, the
    caller's own text/plain, and the report JSON."""
    if report is None or _prof is None:
        return {"text/plain": plain}
    return {"text/html": _prof.render_html(report), "text/plain": plain,
            _prof.REPORT_MIME: report}


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
    SESSION.settle()
    return _require().chrome_trace(str(path))


def session_file(directory):
    SESSION.settle()
    return _require().session_file(str(directory))


def clear():
    """Forget the session's records (the one store, records.py)."""
    SESSION.clear()
    _changes[0] += 1


class SessionAutosave:
    """The kernel's session file, <directory>/npcompile-session-<name>.json: rewritten whole
    (atomically, by the profiler) after every cell that recorded something. A registered
    IPython post_run_cell callback; a failure to write is said once and never breaks a cell."""

    def __init__(self, directory, name):
        safe = re.sub(r"[^A-Za-z0-9_.-]", "_", str(name)) or str(os.getpid())
        self.directory = str(directory)
        self.file_name = f"npcompile-session-{safe}.json"
        self.path = os.path.join(self.directory, self.file_name)
        self._saved = _changes[0]  # the file appears with the first traced cell
        self._warned = False

    def __call__(self, *_result):
        if _prof is None or self._saved == _changes[0]:
            return
        try:
            _prof.session_file(self.directory, self.file_name)
            self._saved = _changes[0]
        except Exception as e:
            if not self._warned:
                print(f"npcompile: cannot write the session file {self.path}: {e}",
                      file=sys.stderr)
                self._warned = True


_autosave = [None]
# session files of this user untouched for longer than this are removed when a kernel
# starts (a kernel that was killed never removed its own; a live one rewrites its file
# after every traced cell)
STALE_SESSION_DAYS = 7


def remove_session_file():
    """The kernel's clean shutdown: its session file goes with it."""
    saver = _autosave[0]
    if saver is not None:
        try:
            os.remove(saver.path)
        except OSError:
            pass


def _remove_stale(directory, keep):
    now = time.time()
    try:
        names = os.listdir(directory)
    except OSError:
        return
    for name in names:
        if not (name.startswith("npcompile-session-") and name.endswith(".json")):
            continue
        path = os.path.join(directory, name)
        try:
            st = os.lstat(path)
            if path != keep and now - st.st_mtime > STALE_SESSION_DAYS * 86400 and \
                    st.st_uid == os.geteuid():
                os.remove(path)
        except OSError:
            pass


def autosave_session(shell, name=None):
    """Called by the kernel at start-up with its IPython shell and kernel id: from then on
    every traced cell updates one session file in Jupyter's runtime folder (open it with
    `npcompile-viewer`). Outside the kernel nothing calls this, so nothing is written unless
    asked. Returns the file's path."""
    from jupyter_core.paths import jupyter_runtime_dir
    saver = SessionAutosave(jupyter_runtime_dir(), name or os.getpid())
    _remove_stale(saver.directory, saver.path)
    if _autosave[0] is not None:
        shell.events.unregister("post_run_cell", _autosave[0])
    shell.events.register("post_run_cell", saver)
    _autosave[0] = saver
    return saver.path


def kernel_session_file():
    """The session file this kernel keeps up to date, or None outside the kernel."""
    return _autosave[0].path if _autosave[0] is not None else None
