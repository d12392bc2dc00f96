"""One store (issue 19): npcompile.report(), the HTML report, the session file and the live
stream all read the native profiler's session. The Python records are its events: a
record's fields are its event's declared fields, and nothing is kept a second time."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import npcompile
from npcompile.records import EVENT_OF_KIND, SESSION, Session

from npcompile import _native

prof = _native.profiler


@pytest.fixture(autouse=True)
def fresh():
    npcompile.reset()
    yield
    npcompile.reset()


def _breaks_twice(x):
    if x.sum() > 0:        # a graph break with its kind and site
        x = x * 2
    return np.sin(x) + 1


def test_report_is_the_profilers_events_grouped_by_kind():
    f = npcompile.jit(_breaks_twice, choose=False)
    for n in (4, 5, 6):    # a new size: a recompile with its reasons
        f(np.arange(float(n)))
    rep = npcompile.report()
    for kind, etype in EVENT_OF_KIND.items():
        events = prof.events(etype)
        assert rep[kind] == [{k: v for k, v in e.items() if k != "type"} for e in events], kind
    # the fields the records used to keep for Python alone are the events' own now
    brk = rep["graph_breaks"][0]
    assert brk["kind"] == "bool" and brk["site"] == "_breaks_twice"
    assert rep["compiles"] and all(c["ops"] > 0 for c in rep["compiles"])
    assert {k["function"] for k in rep["kernels"]} == {"_breaks_twice"}
    assert rep["recompiles"] and rep["recompiles"][0]["reasons"]
    assert rep["recompiles"][0]["reason"] == "; ".join(rep["recompiles"][0]["reasons"])
    # the session file holds the same events
    doc = prof.session()
    assert [e for e in doc["events"] if e["type"] == "graph_break"] == prof.events("graph_break")


def test_totals_count_what_the_store_recorded():
    f = npcompile.jit(lambda x: x + 1, choose=False)
    for _ in range(5):
        f(np.ones(3))
    assert SESSION.total("traces") == prof.total("trace_start") == len(SESSION.traces) >= 5
    npcompile.reset()
    assert SESSION.total("traces") == 0 and SESSION.traces == [] and prof.events() == []


def test_a_field_the_event_does_not_declare_is_refused():
    with pytest.raises(ValueError, match="unknown field 'colour'"):
        SESSION.add("kernels", {"name": "k", "wall_ms": 1.0, "colour": "red"})
    assert SESSION.kernels == []


def test_outside_the_tests_a_refused_record_is_said_once_and_the_program_goes_on():
    code = """
import sys, numpy as np, npcompile
from npcompile.records import SESSION
for _ in range(3):
    SESSION.add("kernels", {"name": "k", "wall_ms": 1.0, "colour": "red"})
print(npcompile.jit(lambda x: x * 3, choose=False)(np.ones(2)).tolist(), len(SESSION.kernels))
"""
    env = dict(os.environ)
    env.pop("NPC_STRICT_RECORDS", None)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["[3.0,", "3.0]", "1"]
    assert r.stderr.count("a kernels record could not be stored") == 1
    assert "unknown field 'colour'" in r.stderr


def test_a_workers_records_keep_its_name_and_are_stamped_by_this_session():
    SESSION.add("kernels", {"name": "k", "wall_ms": 0.5, "function": "f",
                            "worker": "tcp://127.0.0.1:4000"})
    k, = npcompile.report()["kernels"]
    assert k["worker"] == "tcp://127.0.0.1:4000" and k["function"] == "f"
    e, = prof.session()["events"]
    assert e["worker"] == "tcp://127.0.0.1:4000"
    SESSION.add("kernels", {"name": "k2", "wall_ms": 0.5})
    assert "worker" not in npcompile.report()["kernels"][1]   # this process's own


def test_take_hands_over_every_record_in_order_and_forgets_them():
    f = npcompile.jit(lambda x: np.cos(x) * 2, choose=False)
    f(np.ones(3))
    f(np.ones(3))
    kinds = [k for k, _ in SESSION.take()]
    assert kinds[0] == "traces" and "kernels" in kinds and "compiles" in kinds
    assert kinds.index("compiles") < kinds.index("kernels") < kinds.index("trace_ends")
    assert SESSION.traces == [] and prof.events() == []


def test_a_session_of_its_own_keeps_its_records_apart():
    own = Session()
    own.add("path_choices", {"function": "f", "choice": "numpy", "reason": "r"})
    assert [r["choice"] for r in own.path_choices] == ["numpy"] and own.total("path_choices") == 1
    assert SESSION.path_choices == []


def test_the_chrome_trace_and_html_read_the_same_records(tmp_path):
    f = npcompile.jit(_breaks_twice, choose=False)
    f(np.arange(3.0))
    path = tmp_path / "t.json"
    npcompile.export_chrome_trace(path)
    names = {e.get("name", "") for e in json.loads(path.read_text())["traceEvents"]}
    assert any("_breaks_twice" in n for n in names)
    brk = npcompile.report()["graph_breaks"][0]
    assert brk["kind"] == "bool"
    html = npcompile.mime_bundle(last=False)["text/html"]
    assert brk["reason"].split(" (")[0] in html and "_breaks_twice" in html
