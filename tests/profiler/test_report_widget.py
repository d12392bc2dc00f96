"""npcompile.widget(): the report as a live notebook widget (report_widget.py). Outside a
kernel its comm sends nothing, but its state is the same: the report it would show, kept
up to date as calls run, scoped to the traces asked for, and a static bundle for where
no widget runs. (The page itself is exercised in JupyterLab: tests/kernel/test_jupyterlab.py.)"""
import math

import numpy as np
import pytest
from IPython.core.formatters import DisplayFormatter

import npcompile
from npcompile import report_widget
from npcompile._native import profiler as prof

pytest.importorskip("anywidget")


@pytest.fixture(autouse=True)
def fresh(monkeypatch):
    npcompile.reset()
    monkeypatch.setattr(report_widget, "MIN_INTERVAL_S", 0.0)   # every record refreshes
    yield
    npcompile.reset()


def breaks_once(x):
    y = np.sin(x) + 1.0
    if y.sum() > 0:                  # a graph break
        y = y * 2.0
    return y


def cumulated(x):
    return np.cumsum(x[x > 0])       # a break at the compaction


def test_the_widget_shows_the_session_and_follows_it():
    npcompile.jit(breaks_once, choose=False)(np.arange(8.0))
    w = npcompile.widget()
    assert w.live and w.report["summary"]["graph_breaks"] == 1
    assert w.report["breaks"][0]["code"].startswith("if y.sum() > 0:")
    assert w.report["kernels"] and w.report["kernels"][0]["source"]
    npcompile.jit(cumulated, choose=False)(np.arange(-3.0, 5.0))
    # live: the new call's break is in the widget's state without asking
    assert w.report["summary"]["graph_breaks"] == 2
    assert {b["function"] for b in w.report["breaks"]} == {"breaks_once", "cumulated"}


def test_a_widget_since_a_trace_shows_what_came_after():
    npcompile.jit(breaks_once, choose=False)(np.arange(8.0))
    first = npcompile.SESSION.total("traces")
    w = npcompile.widget(since_trace=first)
    assert w.report["summary"]["graph_breaks"] == 0
    npcompile.jit(cumulated, choose=False)(np.arange(-3.0, 5.0))
    assert [b["function"] for b in w.report["breaks"]] == ["cumulated"]


def test_a_snapshot_does_not_move():
    npcompile.jit(breaks_once, choose=False)(np.arange(8.0))
    w = npcompile.widget(live=False)
    npcompile.jit(cumulated, choose=False)(np.arange(-3.0, 5.0))
    assert w.report["summary"]["graph_breaks"] == 1 and not w.live


def test_its_output_reads_well_where_no_widget_runs():
    npcompile.jit(breaks_once, choose=False)(np.arange(8.0))
    w = npcompile.widget()
    data, _ = DisplayFormatter().format(w)
    assert "application/vnd.jupyter.widget-view+json" in data
    assert "bool() of an array value" in data["text/html"]     # the static report
    assert "graph break" in data["text/plain"]
    assert data[prof.REPORT_MIME]["summary"]["graph_breaks"] == 1


def test_numbers_json_cannot_hold_are_none():
    got = report_widget._finite({"a": [1.0, math.inf, {"b": -math.inf, "c": math.nan}], "d": 2})
    assert got == {"a": [1.0, None, {"b": None, "c": None}], "d": 2}


def test_show_outside_a_kernel_is_the_static_report(capsys):
    npcompile.jit(breaks_once, choose=False)(np.arange(8.0))
    assert not report_widget.in_kernel()
    report_widget.show(last=True)    # IPython's display prints text without a frontend
    assert "graph break" in capsys.readouterr().out


def test_kernels_say_the_bytes_they_move_against_the_machines_copy():
    f = npcompile.jit(lambda x, y: np.sin(x) * y + 1.0, choose=False)
    x, y = np.linspace(0, 1, 50_000), np.linspace(1, 2, 50_000)
    for _ in range(3):
        f(x, y)
    w = npcompile.widget()
    (k,) = w.report["kernels"]
    # two float64 inputs read and one output written whole, a run
    assert k["runs"] == 3 and k["bytes"] == 3 * 3 * x.nbytes
    assert w.copy_gbps > 0.1
