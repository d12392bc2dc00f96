"""The kernel's session file (npcompile.report.autosave_session) without a kernel: an IPython
event manager stands in for the kernel's shell. Outside the kernel nothing is written."""
import importlib
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from IPython.core.events import EventManager, available_events

import npcompile

report = importlib.import_module("npcompile.report")  # npcompile.report is also a function


class Shell:
    def __init__(self):
        self.events = EventManager(self, available_events)


@pytest.fixture
def runtime(tmp_path, monkeypatch):
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(tmp_path))
    yield tmp_path
    report._autosave[0] = None


# the compiled path always: after a few calls the path choice may run plain NumPy, which
# records nothing, and a later test here found no session file to check
@npcompile.jit(choose=False)
def _halve_if_positive(x):
    y = x * 2.0
    if y.sum() > 0:
        y = y / 2
    return y


def test_traced_cells_update_one_file(runtime):
    shell = Shell()
    path = report.autosave_session(shell, "abc-123")
    assert path == str(runtime / "npcompile-session-abc-123.json")
    assert report.kernel_session_file() == path
    shell.events.trigger("post_run_cell", None)
    assert not os.path.exists(path)  # nothing traced yet: no file

    _halve_if_positive(np.arange(5.0))
    shell.events.trigger("post_run_cell", None)
    doc = json.loads(open(path).read())
    assert doc["kind"] == "session" and doc["pid"] == os.getpid()
    assert any(e["type"] == "graph_break" for e in doc["events"])
    n = len(doc["events"])

    os.remove(path)
    shell.events.trigger("post_run_cell", None)  # a cell that traced nothing: no rewrite
    assert not os.path.exists(path)

    _halve_if_positive(np.arange(5.0))
    shell.events.trigger("post_run_cell", None)
    assert len(json.loads(open(path).read())["events"]) > n
    assert [p.name for p in runtime.iterdir()] == ["npcompile-session-abc-123.json"]


def test_registering_again_replaces_the_callback_and_names_are_plain(runtime):
    shell = Shell()
    report.autosave_session(shell, "first")
    path = report.autosave_session(shell, "../x y")
    assert os.path.dirname(path) == str(runtime)
    assert os.path.basename(path) == "npcompile-session-.._x_y.json"
    assert len(shell.events.callbacks["post_run_cell"]) == 1


def test_a_failed_write_is_said_once_and_never_raises(runtime, capsys):
    saver = report.SessionAutosave(runtime / "file-not-folder", "k")
    (runtime / "file-not-folder").write_text("")
    _halve_if_positive(np.arange(3.0))
    saver()
    saver()
    assert capsys.readouterr().err.count("cannot write the session file") == 1


def test_nothing_is_written_outside_the_kernel(tmp_path):
    code = ("import numpy as np, npcompile\n"
            "f = npcompile.jit(lambda x: (x * 2).sum())\n"
            "print(float(f(np.arange(4.0))))\n")
    env = dict(os.environ, JUPYTER_RUNTIME_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=120, check=True)
    assert out.stdout.strip() == "12.0"
    assert list(tmp_path.iterdir()) == []


def test_the_session_file_is_private_and_goes_with_a_clean_shutdown(runtime):
    """It holds the cells' source: 0600, like the connection file; the kernel's shutdown
    removes it, and a new kernel removes files left by killed ones after some days."""
    stale = runtime / "npcompile-session-killed.json"
    stale.write_text("{}")
    old = os.path.getmtime(stale) - (report.STALE_SESSION_DAYS + 1) * 86400
    os.utime(stale, (old, old))
    recent = runtime / "npcompile-session-other-kernel.json"
    recent.write_text("{}")
    shell = Shell()
    path = report.autosave_session(shell, "private-1")
    assert not stale.exists() and recent.exists()
    _halve_if_positive(np.arange(5.0))
    shell.events.trigger("post_run_cell", None)
    assert os.stat(path).st_mode & 0o777 == 0o600
    report.remove_session_file()
    assert not os.path.exists(path)
