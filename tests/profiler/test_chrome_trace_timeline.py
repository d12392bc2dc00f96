"""The Chrome trace of a real session reads as a clean timeline (issue 19): every trace
ends (trace_end), slices on each lane nest or follow each other, a compile's phases fit
inside it on the threads that ran them, and kernels, eager runs and transfers have lanes
of their own. The check is structural, as Perfetto's importer would see it."""
import json

import numpy as np
import pytest

import npcompile
from npcompile.backends import cpu

pytestmark = pytest.mark.skipif(npcompile.report.__module__ is None, reason="")


def structure_problems(trace):
    problems, lanes, named = [], {}, set()
    for e in trace["traceEvents"]:
        lane = (e["pid"], e["tid"])
        if e["ph"] == "M" and e["name"] == "thread_name":
            named.add(lane)
        if e["ph"] != "X":
            continue
        if e["ts"] < 0 or e["dur"] < 0:
            problems.append(f"negative time: {e}")
        if "(unfinished)" in e["name"]:
            problems.append(f"unfinished: {e['name']}")
        lanes.setdefault(lane, []).append((e["ts"], e["ts"] + e["dur"], e["name"]))
    for lane, slices in lanes.items():
        if lane not in named:
            problems.append(f"lane without a name: {lane}")
        slices.sort(key=lambda s: (s[0], -s[1]))
        open_ = []
        for start, end, name in slices:
            while open_ and open_[-1][0] <= start + 1e-6:
                open_.pop()
            if open_ and end > open_[-1][0] + 1e-6:
                problems.append(f"{name} overlaps {open_[-1][1]} on {lane}")
            open_.append((end, name))
    return problems


def many_kernels(x, y):
    a = np.sin(x) * 2 + y
    b = np.cumsum(a)            # a scan: a kernel of its own
    c = np.exp(-y).sum()
    d = (a - b.mean()) / (np.abs(y).max() + 1)
    return a, b * c, d, np.tanh(x) @ y


def breaks(x):
    y = np.sin(x) * 2
    u, n = np.unique(y, return_index=True)    # NumPy's call: a graph break
    return y * u.size + n.max()


def test_a_real_sessions_chrome_trace_is_a_clean_timeline(tmp_path):
    npcompile.reset()
    x, y = np.linspace(0, 1, 5000), np.linspace(1, 2, 5000)
    f = npcompile.jit(many_kernels, choose=False)
    for _ in range(4):                  # a compile, then replays
        f(x, y)
    g = npcompile.jit(breaks, choose=False)
    g(np.array([0.9, 0.1, 0.7, 0.2]))
    npcompile.run_cell("z = np.sqrt(x) + 1\nw = z[z > 1.5]", {"np": np, "x": x})
    path = tmp_path / "trace.json"
    npcompile.export_chrome_trace(path)
    trace = json.loads(path.read_text())
    assert structure_problems(trace) == []
    xs = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    names = {e["tid"]: e["args"]["name"] for e in trace["traceEvents"]
             if e["ph"] == "M" and e["name"] == "thread_name"}
    traces = [e for e in xs if e["cat"] == "trace"]
    assert any(e["name"] == "trace many_kernels" for e in traces)
    assert any(e["name"] == "replay many_kernels" for e in traces)
    assert any(e["name"].startswith("trace <") or "cell" in e["name"] for e in traces), \
        [e["name"] for e in traces]
    if not cpu.AVAILABLE:
        return
    compiles = [e for e in xs if e["cat"] == "compile"]
    phases = [e for e in xs if e["cat"] == "compile.phase"]
    assert compiles and phases
    for c in compiles:                  # each phase inside its compile, on whichever lane
        mine = [p for p in phases if p["args"]["graph_id"] == c["args"]["graph_id"]
                and c["ts"] - 1e-6 <= p["ts"] <= c["ts"] + c["dur"] + 1e-6]
        for p in mine:
            assert p["ts"] + p["dur"] <= c["ts"] + c["dur"] + 1e-3, (p, c)
    kernels = [e for e in xs if e["cat"] == "kernel"]
    assert kernels and all(names[k["tid"]].startswith("kernels (") for k in kernels)
    # trace slices hold the breaks they report
    brk = [e for e in trace["traceEvents"] if e["ph"] == "i" and e["cat"] == "graph_break"]
    assert brk
    for b in brk:
        assert any(t["tid"] == b["tid"] and t["ts"] <= b["ts"] <= t["ts"] + t["dur"]
                   for t in traces), b
