"""npcompile._native.profiler, as installed: emit events, read them back, build and render
reports, export Chrome traces and session files."""
import base64
import json
import os
import re
import threading

import numpy as np
import pytest

from npcompile._native import profiler as prof


@pytest.fixture(autouse=True)
def fresh_session():
    prof.clear()
    yield
    prof.clear()


def emit_sample():
    prof.emit("trace_start", function="f", filename="cell.py", lineno=1)
    prof.emit("compile", graph_id=0, function="f", target="cpu", kernels=2,
              phases={"trace": 0.5, "fusion": 0.1, "jit": 2.0})
    prof.emit("fusion_graph", graph_id=0, nodes=[
        {"id": 0, "op": "input", "label": "x", "kernel": -1, "inputs": []},
        {"id": 1, "op": "exp", "label": "np.exp(x)", "kernel": 0, "inputs": [0]},
        {"id": 2, "op": "sum", "label": "", "kernel": 1, "inputs": [1]},
    ], decisions=["exp | sum: split"])
    prof.emit({"type": "kernel_source", "name": "k_exp", "graph_id": 0, "target": "cpu",
               "source": "for (long i = 0; i < n; ++i) y[i] = exp(x[i]); // exp",
               "ops": [{"op": "exp", "lineno": 2, "text": "y = np.exp(x)"}]})
    prof.emit("kernel_source", name="k_sum", graph_id=0, source="double acc = 0;")
    for ms in (1.0, 3.0, 2.0):
        prof.emit("kernel_run", name="k_exp", graph_id=0, wall_ms=ms, bytes=16_000_000)
        prof.emit("kernel_run", name="k_sum", graph_id=0, wall_ms=0.5, bytes=8_000_000)
    prof.emit("eager_timing", graph_id=0, ms=10.0)
    for _ in range(3):
        prof.emit("graph_break", reason="print() of a traced array", filename="cell.py",
                  lineno=5, function="f", code="print(y)", hint="print after the loop")
    prof.emit("graph_break", reason="bool() of a traced array", filename="cell.py", lineno=7,
              code="if y.any():")
    prof.emit("recompile", function="f", filename="cell.py", lineno=1, graph_id=1,
              reason="x: dtype float64 -> float32")
    prof.emit("fallback", reason="codegen failed", graph_id=1, detail="complex64")
    prof.emit("transfer", direction="h2d", bytes=4096, ms=0.01)
    prof.emit("trace_end", function="f", graphs=1, breaks=4)


def test_emit_and_events_round_trip():
    emit_sample()
    evs = prof.events()
    assert len(evs) == 20
    assert evs[0] == {"type": "trace_start", "function": "f", "filename": "cell.py", "lineno": 1,
                      "ts_us": evs[0]["ts_us"], "tid": evs[0]["tid"]}
    assert all(e["ts_us"] >= 0 and e["tid"] >= 1 for e in evs)
    assert [e["ts_us"] for e in evs] == sorted(e["ts_us"] for e in evs)
    breaks = prof.events("graph_break")
    assert len(breaks) == 4 and breaks[0]["hint"] == "print after the loop"
    assert breaks[3]["hint"] == ""  # optional fields default
    c = prof.events("compile")[0]
    assert c["total_ms"] == pytest.approx(2.6) and c["cache"] == "miss"
    assert set(prof.event_types()) == {
        "trace_start", "trace_end", "graph_break", "compile", "recompile", "kernel_run",
        "eager_timing", "fallback", "transfer", "kernel_source", "fusion_graph", "path_choice",
        "loop"}
    # One table of fields: each event is exactly one kind of the Python session's records
    # (which are these events: tests/profiler/test_one_store.py)
    from npcompile.records import EVENT_OF_KIND, Session
    assert sorted(EVENT_OF_KIND.values()) == sorted(prof.event_types())
    assert tuple(EVENT_OF_KIND) == Session.KINDS
    # Every event dict goes back in unchanged.
    prof.clear()
    for e in evs:
        prof.emit(e)
    assert prof.events() == evs


def test_numpy_scalars_and_none_are_accepted():
    prof.emit("kernel_run", name="k", wall_ms=np.float32(0.25), bytes=np.int64(1024),
              graph_id=np.int32(3), target="cuda")
    prof.emit("graph_break", reason="r", hint=None, lineno=np.int64(4))
    k, b = prof.events()
    assert k["wall_ms"] == 0.25 and k["bytes"] == 1024 and k["graph_id"] == 3
    assert b["lineno"] == 4 and b["hint"] == ""


def test_odd_strings_survive():
    prof.emit("graph_break", reason="lone \ud800 surrogate", code="π ≈ 3.14 — ok")
    e = prof.events()[0]
    assert e["reason"] == "lone ? surrogate" and e["code"] == "π ≈ 3.14 — ok"
    html = prof.render_html()  # the code line is highlighted: 3.14 sits in a span
    assert "π ≈ " in html and "— ok" in html


@pytest.mark.parametrize("args, kwargs, message", [
    (("graph_brake",), {"reason": "x"}, "unknown event type 'graph_brake'"),
    (({"reason": "x"},), {}, "'type'"),
    (("graph_break",), {}, "'reason' is required"),
    (("graph_break",), {"reason": "x", "resaon": "x"}, "unknown field 'resaon'"),
    (("graph_break",), {"reason": "x", "lineno": "7"}, "'lineno' must be an integer"),
    (("kernel_run",), {"name": "k", "wall_ms": "fast"}, "'wall_ms' must be a number"),
    (("compile",), {"graph_id": 0, "target": "tpu"}, "'target' must be one of"),
    (("transfer",), {"direction": "up", "bytes": 1}, "'direction'"),
    (("fusion_graph",), {"graph_id": 0, "nodes": [{"id": 0}]}, "nodes[0]"),
    (("graph_break",), {"reason": object()}, "cannot store"),
])
def test_bad_events_raise_value_error(args, kwargs, message):
    with pytest.raises(ValueError) as info:
        prof.emit(*args, **kwargs)
    assert message in str(info.value)
    assert prof.events() == []


def test_emit_wrong_first_argument_is_type_error():
    with pytest.raises(TypeError):
        prof.emit(42)


def test_report_dict():
    emit_sample()
    r = prof.report()
    assert r["schema"] == prof.SCHEMA == "npcompile.profile"
    assert r["version"] == prof.VERSION == 1
    s = r["summary"]
    assert s["graph_breaks"] == 4 and s["unique_breaks"] == 2
    assert s["recompiles"] == 1 and s["kernels"] == 2 and s["kernel_runs"] == 6
    # 7.5 ms of kernels over 3 executions vs 10 ms eager per execution.
    assert s["speedup"] == pytest.approx(4.0)
    assert r["breaks"][0]["count"] == 3 and r["breaks"][0]["lineno"] == 5
    assert r["recompiles"][0]["reason"] == "x: dtype float64 -> float32"
    k = {k["name"]: k for k in r["kernels"]}
    assert k["k_exp"]["median_ms"] == 2.0 and k["k_exp"]["runs"] == 3
    assert "exp(x[i])" in k["k_exp"]["source"]
    assert r["graphs"][0]["nodes"][1]["op"] == "exp"
    assert prof.report(last_n_traces=0)["summary"]["kernel_runs"] == 0
    assert prof.report(1) == r
    with pytest.raises(ValueError):
        prof.report(-1)
    json.dumps(r)  # plain JSON for the MIME bundle


def test_render_html_and_text():
    emit_sample()
    r = prof.report()
    html = prof.render_html(r)
    assert html.startswith('<div class="npcprof-v1"')
    assert "print() of a traced array" in html and "k_exp" in html and "k_sum" in html
    assert html.count('src="data:image/svg+xml;base64,') >= 2 and "<script" not in html
    # each picture is an image of a whole SVG document
    for data in re.findall(r'data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)"', html):
        svg = base64.b64decode(data).decode()
        assert svg.startswith("<svg") and svg.endswith("</svg>")
    # Without a dict it renders the session; only the page-unique ids differ.
    def ids(h):
        return re.sub(r"npc-arrow-[0-9-]+", "ID", h)
    assert ids(prof.render_html()) == ids(html)
    text = prof.render_text(r)
    assert "4 graph breaks (2 places)" in text and "3x  print() of a traced array" in text
    assert "k_exp" in text and "x: dtype float64 -> float32" in text
    bundle = prof.mime_bundle()
    assert set(bundle) == {"text/html", "text/plain", prof.REPORT_MIME}
    assert bundle[prof.REPORT_MIME]["summary"] == r["summary"]
    with pytest.raises(ValueError):
        prof.render_html({"schema": "other", "version": 1})


def test_html_escapes_injection():
    evil = "<script>alert(1)</script>"
    prof.emit("graph_break", reason=evil, code=evil, hint=evil, filename=evil, function=evil)
    prof.emit("kernel_source", name=evil, source="// " + evil, ops=[{"op": evil, "text": evil}])
    prof.emit("kernel_run", name=evil, wall_ms=1.0)
    html = prof.render_html()
    assert "<script" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_chrome_trace_file(tmp_path):
    emit_sample()
    prof.set_thread_name("main")
    path = prof.chrome_trace(tmp_path / "trace.json")
    assert path == str(tmp_path / "trace.json")
    with open(path) as f:
        t = json.load(f)
    assert t["schema"] == "npcompile.profile" and t["version"] == 1
    evs = t["traceEvents"]
    x = [e for e in evs if e["ph"] == "X"]
    i = [e for e in evs if e["ph"] == "i"]
    assert {e["cat"] for e in x} >= {"compile", "compile.phase", "kernel", "trace", "transfer"}
    assert {e["cat"] for e in i} == {"graph_break", "recompile", "fallback"}
    runs = [e for e in x if e["cat"] == "kernel" and e["name"] == "k_exp"]
    assert [e["dur"] for e in runs] == [1000.0, 3000.0, 2000.0]
    assert any(e["ph"] == "M" and e["args"].get("name") == "main" for e in evs)
    assert json.loads(prof.chrome_trace_json())["traceEvents"] == evs


def test_session_file_and_load(tmp_path):
    emit_sample()
    path = prof.session_file(tmp_path / "sessions")
    assert re.fullmatch(r"npcompile-%d-\d{8}T\d{6}Z\.json" % os.getpid(), os.path.basename(path))
    with open(path) as f:
        doc = json.load(f)
    assert doc["schema"] == "npcompile.profile" and doc["version"] == 1
    assert doc == prof.session()
    evs = prof.events()
    prof.clear()
    prof.load(doc)
    assert prof.events() == evs
    assert os.listdir(tmp_path / "sessions") == [os.path.basename(path)]


def test_threads_emit_concurrently():
    def work(n):
        for i in range(500):
            prof.emit("kernel_run", name="k%d" % n, wall_ms=0.001, bytes=i)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    evs = prof.events("kernel_run")
    assert len(evs) == 2000
    for n in range(4):
        mine = [e for e in evs if e["name"] == "k%d" % n]
        assert [e["bytes"] for e in mine] == list(range(500))
        assert len({e["tid"] for e in mine}) == 1
