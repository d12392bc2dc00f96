"""End to end: a real npcompile kernel serves its session live, and npcompile-viewer
--attach, under Xvfb, follows it: the viewer's model receives the events of cells run
before and after it attached, a wrong key is refused on both sides and the kernel runs on,
and a restarted kernel is attached again on its new port. The screenshot is kept as
viewer-live-attach.png ($NPC_SCREENSHOT_DIR)."""
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .kernel_helpers import run_cell, start_in_runtime

sys.path.insert(0, str(Path(__file__).parents[1] / "profiler"))
from viewer_binary import require_viewer  # noqa: E402

SIZE = "1400x1000"


@pytest.fixture(scope="module")
def viewer():
    return require_viewer()


@pytest.fixture(scope="module")
def kernel(kernelspec, tmp_path_factory):
    runtime = tmp_path_factory.mktemp("runtime")
    kernel_id, km, kc = start_in_runtime(runtime)
    kc.wait_for_ready(timeout=60)
    yield km, kc, runtime, Path(km.connection_file)
    kc.stop_channels()
    km.shutdown_kernel(now=True)


def ok(kc, code):
    reply, outputs = run_cell(kc, code, timeout=120)
    assert reply["status"] == "ok", (reply, outputs)
    return outputs


def kernel_value(kc, expr):
    out = ok(kc, f"print(repr({expr}))")
    text = "".join(m["content"].get("text", "") for m in out if m["msg_type"] == "stream")
    return eval(text.strip())


def attach_viewer(viewer, target, png, wait_events, timeout=60, extra=()):
    return subprocess.Popen(["xvfb-run", "-a", viewer, "--attach", str(target), *extra,
                             "--screenshot", str(png), "--size", SIZE,
                             "--wait-events", str(wait_events), "--timeout", str(timeout)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def attached_events(stdout):
    m = re.search(r"attached \((.*)\), (\d+) events", stdout)
    assert m, stdout
    return m.group(1), int(m.group(2))


def test_the_kernels_attach_file(kernel):
    km, kc, runtime, conn = kernel
    attach = runtime / f"npcompile-attach-{conn.name}"
    assert attach.exists()
    assert attach.stat().st_mode & 0o777 == 0o600
    info = json.loads(attach.read_text())
    assert info["host"] == "127.0.0.1" and info["port"] > 0
    assert info["connection_file"] == str(conn)
    assert json.loads(conn.read_text())["key"] not in attach.read_text()
    assert info["pid"] == kernel_value(kc, "__import__('os').getpid()")


def test_the_viewer_follows_the_kernel_live(kernel, viewer, tmp_path):
    km, kc, runtime, conn = kernel
    ok(kc, "import numpy as np\nx = np.linspace(0, 1, 1000)")
    ok(kc, "%%npcompile\ny = np.sin(x) * 2 + x\nif y.sum() > 0:\n    y = y + 1")
    count = "len(__import__('importlib').import_module('npcompile.report').profiler().session()['events'])"
    before = kernel_value(kc, count)
    assert before > 0
    png = tmp_path / "live.png"
    # the viewer waits for more events than there are: those of the cells run below,
    # after it attached
    proc = attach_viewer(viewer, conn, png, before + 3)
    time.sleep(1.0)
    ok(kc, "%%npcompile\nz = np.cos(x) + y\nw = (z * z).sum()")
    ok(kc, "%%npcompile\nv = np.exp(-x) * z")
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    status, events = attached_events(out)
    assert status.startswith("live: pid ") and "127.0.0.1:" in status, status
    assert events >= before + 3
    assert events <= kernel_value(kc, count)
    assert png.stat().st_size > 10_000
    keep = os.environ.get("NPC_SCREENSHOT_DIR")
    if keep:        # for a person to look at (make test lists them)
        os.makedirs(keep, exist_ok=True)
        shutil.copy(png, os.path.join(keep, "viewer-live-attach.png"))


def test_a_wrong_key_is_refused_and_the_kernel_runs_on(kernel, viewer, tmp_path):
    km, kc, runtime, conn = kernel
    info = json.loads((runtime / f"npcompile-attach-{conn.name}").read_text())
    wrong = tmp_path / "npcompile-attach-wrong.json"
    wrong.write_text(json.dumps({"npcompile_attach": 1, "host": "127.0.0.1",
                                 "port": info["port"], "pid": info["pid"],
                                 "key": "not the kernel's key"}))
    proc = attach_viewer(viewer, wrong, tmp_path / "wrong.png", 1, timeout=3)
    out, err = proc.communicate(timeout=60)
    # no session to show (the viewer exits 1; xvfb-run now and then exits 5 on its own
    # clean-up, so the viewer's own words are what is checked)
    assert proc.returncode != 0 and "without a session" in out, (out, err)
    assert "refused" in out + err, (out, err)
    ok(kc, "%%npcompile\nq = np.sqrt(x) + 1")          # the kernel is unharmed
    deadline = time.time() + 10
    while True:     # (the kernel's attach thread logs it at its next turn)
        status = kernel_value(kc, "__import__('npcompile.attach').attach.status()")
        if status["refused"] >= 1 or time.time() > deadline:
            break
        time.sleep(0.2)
    assert status["refused"] >= 1, (status, out, err)


def test_a_restarted_kernel_is_attached_again_on_its_new_port(kernel, viewer, tmp_path):
    km, kc, runtime, conn = kernel
    attach = runtime / f"npcompile-attach-{conn.name}"
    old = json.loads(attach.read_text())
    km.restart_kernel(now=True)
    kc.wait_for_ready(timeout=60)
    deadline = time.time() + 30
    while time.time() < deadline:
        new = json.loads(attach.read_text()) if attach.exists() else old
        if new["pid"] != old["pid"]:
            break
        time.sleep(0.1)
    assert new["pid"] != old["pid"]
    ok(kc, "import numpy as np")
    ok(kc, "%%npcompile\na = np.arange(50.0) * 3")
    proc = attach_viewer(viewer, conn, tmp_path / "restarted.png", 1)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    status, events = attached_events(out)
    assert f"pid {new['pid']}" in status and events >= 1
