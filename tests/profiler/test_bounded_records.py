"""Bounded memory (issue 16): a long session keeps the last records of each kind and the
last events of the native profiler, not all of them; totals stay whole."""
import json
import subprocess
import sys

_LONG_SESSION = """
import json, numpy as np, npcompile
from npcompile import _native
from npcompile.records import SESSION
f = npcompile.jit(lambda x: x * 2 + 1, choose=False)
x = np.ones(4)
for i in range(3000):
    f(x)
rep = npcompile.report()
print(json.dumps({"traces": len(rep["traces"]), "kernels": len(rep["kernels"]),
                  "total": SESSION.total("traces"),
                  "events": len(_native.profiler.session()["events"])}))
"""


def test_a_long_session_keeps_the_last_records_and_events():
    env = {"NPC_MAX_RECORDS": "100", "NPC_MAX_EVENTS": "300", "PATH": "/usr/bin:/bin"}
    import os
    env = dict(os.environ, **env)
    r = subprocess.run([sys.executable, "-c", _LONG_SESSION], capture_output=True, text=True,
                       env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout.strip().splitlines()[-1])
    assert got["total"] == 3000
    assert 100 <= got["traces"] <= 125 and got["kernels"] <= 125
    assert 300 <= got["events"] <= 375


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


def test_kernel_sources_and_fusion_graphs_keep_a_tenth_as_many():
    """They weigh 3-4 KB a record, five times a run's records: a tenth of the cap."""
    import os
    env = dict(os.environ, NPC_MAX_RECORDS="100")
    r = subprocess.run([sys.executable, "-c", _SOURCES], capture_output=True, text=True,
                       env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout.strip().splitlines()[-1])
    assert got["total"] >= 60 and got["compiles"] >= 60
    assert 10 <= got["sources"] <= 12 and 10 <= got["graphs"] <= 12
