"""Bounded memory (issue 16): a long session keeps the newest records of each kind, not all
of them; totals stay whole. The records are the native profiler's events (one store), so
report() and the session file hold the same ones."""
import json
import subprocess
import sys

_LONG_SESSION = """
import json, numpy as np, npcompile
from npcompile import _native
from npcompile.records import SESSION
f = npcompile.jit(lambda x: x * 2 + 1, choose=False)
x = np.ones(4)
def g(x):
    if x.sum() > 0:    # a graph break, once, before the flood of kernel runs
        return x
    return -x
npcompile.jit(g, choose=False)(x)
for i in range(3000):
    f(x)
rep = npcompile.report()
events = _native.profiler.session()["events"]
print(json.dumps({"traces": len(rep["traces"]), "kernels": len(rep["kernels"]),
                  "breaks": len(rep["graph_breaks"]), "total": SESSION.total("traces"),
                  "events": len(events),
                  "kept": sum(e["type"] in ("trace_start", "kernel_run") for e in events),
                  "ordered": [e["ts_us"] for e in events] == sorted(e["ts_us"] for e in events)}))
"""


def test_a_long_session_keeps_the_last_records_and_events():
    env = {"NPC_MAX_RECORDS": "100", "PATH": "/usr/bin:/bin"}
    import os
    env = dict(os.environ, **env)
    r = subprocess.run([sys.executable, "-c", _LONG_SESSION], capture_output=True, text=True,
                       env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout.strip().splitlines()[-1])
    assert got["total"] == 3001
    assert got["traces"] == 100 and got["kernels"] == 100
    assert got["breaks"] == 1     # kept: kernel runs do not push out the session's breaks
    assert got["kept"] == 200 and got["events"] <= 13 * 100 and got["ordered"]


_SOURCES = """
import json, numpy as np, npcompile
from npcompile.records import SESSION
for k in range(60):    # 60 distinct graphs: 60 kernel sources and fusion graphs
    ns = {"np": np}
    exec(f"def f(a):\\n    return np.sin(a) * {k} + np.cos(a) ** {k % 3 + 2}\\n", ns)
    npcompile.jit(ns["f"], choose=False)(np.arange(4.0 + k))
rep = npcompile.report()
print(json.dumps({"sources": len(rep["kernel_sources"]), "graphs": len(rep["fusion_graphs"]),
                  "compiles": len(rep["compiles"]), "total": SESSION.total("kernel_sources")}))
"""


def test_kernel_sources_and_fusion_graphs_keep_a_fiftieth_as_many():
    """They weigh 3-4 KB a record, twenty times a kernel run's: a fiftieth of the cap."""
    import os
    env = dict(os.environ, NPC_MAX_RECORDS="500")
    r = subprocess.run([sys.executable, "-c", _SOURCES], capture_output=True, text=True,
                       env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout.strip().splitlines()[-1])
    assert got["total"] >= 60 and got["compiles"] >= 60
    assert got["sources"] == 10 and got["graphs"] == 10
