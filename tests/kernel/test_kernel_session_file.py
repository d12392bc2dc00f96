"""The installed kernel keeps npcompile-session-<kernel id>.json in Jupyter's runtime folder:
written by the first traced cell, rewritten by every traced cell, left alone by others; and
npcompile-viewer, given the folder, opens it."""
import json
import os
import shutil
import subprocess
import time

import pytest

from .kernel_helpers import run_cell, start_in_runtime as _started


@pytest.fixture(scope="module")
def runtime_kernel(kernelspec, tmp_path_factory):
    """A kernel with a fresh runtime folder: the test sees only its own files."""
    runtime = tmp_path_factory.mktemp("runtime")
    kernel_id, km, kc = _started(runtime)
    kc.wait_for_ready(timeout=60)
    yield kernel_id, kc, runtime
    kc.stop_channels()
    km.shutdown_kernel(now=True)


def sessions(runtime):
    return sorted(runtime.glob("npcompile-session-*.json"))


def ok(kc, code):
    reply, outputs = run_cell(kc, code, timeout=120)
    assert reply["status"] == "ok", (reply, outputs)
    return outputs


def test_traced_cells_update_the_kernel_session_file(runtime_kernel):
    kernel_id, kc, runtime = runtime_kernel
    ok(kc, "import numpy as np\nx = np.arange(10.0)")
    assert sessions(runtime) == []  # nothing traced yet

    ok(kc, "%%npcompile\ny = x * 2\nif y.sum() > 0:\n    y = y + 1")
    files = sessions(runtime)
    assert [f.name for f in files] == [f"npcompile-session-{kernel_id}.json"]
    doc = json.loads(files[0].read_text())
    assert doc["schema"] == "npcompile.profile" and doc["kind"] == "session"
    breaks = [e for e in doc["events"] if e["type"] == "graph_break"]
    # the cell's own line number, the magic's line counted (as the editor counts it)
    assert breaks and breaks[0]["lineno"] == 3 and breaks[0]["code"] == "if y.sum() > 0:"
    stamp = files[0].stat().st_mtime_ns

    time.sleep(0.05)
    ok(kc, "z = 1 + 1")  # traced nothing: the file stays as it was
    assert files[0].stat().st_mtime_ns == stamp

    ok(kc, "%%npcompile\nw = np.sqrt(x) + x")
    assert len(json.loads(files[0].read_text())["events"]) > len(doc["events"])
    # No temporary files left behind by the atomic writes (beside the live attach's file).
    assert sorted(p.name for p in runtime.iterdir() if p.name.startswith("npcompile")) == \
        [f"npcompile-attach-kernel-{kernel_id}.json", files[0].name]
    out = ok(kc, "import importlib\nimportlib.import_module('npcompile.report').kernel_session_file()")
    assert str(files[0]) in "".join(m["content"]["data"]["text/plain"] for m in out
                                    if m["msg_type"] == "execute_result")


def test_the_viewer_opens_the_runtime_folder(runtime_kernel, tmp_path):
    _, kc, runtime = runtime_kernel
    ok(kc, "%%npcompile\nv = (x * 3).sum()")
    viewer = os.environ.get("NPC_VIEWER") or shutil.which("npcompile-viewer")
    if not viewer or shutil.which("xvfb-run") is None:
        pytest.skip("npcompile-viewer or xvfb-run is not installed")
    png = tmp_path / "v.png"
    run = subprocess.run(["xvfb-run", "-a", viewer, "--screenshot", str(png)],
                         env=dict(os.environ, JUPYTER_RUNTIME_DIR=str(runtime)),
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert png.stat().st_size > 10_000


def test_a_real_kernel_writes_its_session_file_private_and_removes_it_at_shutdown(
        kernelspec, tmp_path):
    """The file holds the cells' source: 0600 like the connection file, written by the
    kernel itself, and gone after a clean shutdown (a shutdown_request, as JupyterLab
    sends when a notebook is closed)."""
    runtime = tmp_path / "runtime"
    runtime.mkdir()
    kernel_id, km, kc = _started(runtime)
    try:
        kc.wait_for_ready(timeout=60)
        ok(kc, "import numpy as np")
        ok(kc, "%%npcompile\ny = np.arange(5.0) * 2\nif y.sum() > 0:\n    y = y + 1")
        files = sessions(runtime)
        assert [f.name for f in files] == [f"npcompile-session-{kernel_id}.json"]
        assert files[0].stat().st_mode & 0o777 == 0o600
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=False)     # the clean way: a shutdown_request
    assert not km.is_alive()
    assert sessions(runtime) == []
    assert list(runtime.glob("npcompile-attach-*")) == []   # the live attach's file too
