"""What `make run` gives a user: JupyterLab 4 from the project's environment, with
"Python 3 (npcompile)" in its launcher, and a notebook whose `%%npcompile` cell runs on
the kernel and shows its report. Driven in Debian's Chromium by Playwright (PyPI's
package, told to use /usr/bin/chromium: it downloads no browser of its own).

Screenshots go to the test's tmp folder, or to $NPC_SCREENSHOT_DIR when set, so that
a person can look at them."""
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from .kernel_helpers import KERNEL_NAME

playwright_api = pytest.importorskip("playwright.sync_api")
pytest.importorskip("jupyterlab")
CHROMIUM = shutil.which("chromium")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")

TOKEN = "npc-test-token"
# Without the background-networking flags Chromium keeps dialling hosts this closed
# network refuses.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
CELL = ("%%npcompile --report\n"
        "x = np.linspace(0.0, 1.0, 200_000)\n"
        "y = np.sin(x) * 2.0 + np.cos(x) ** 2\n"
        "total = float(y.sum())\n"
        "print('total', round(total, 3))")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def notebook(path, sources=("import numpy as np", CELL)):
    """A notebook of code cells on the npcompile kernel, written to `path`."""
    nb = {"nbformat": 4, "nbformat_minor": 5,
          "metadata": {"kernelspec": {"name": KERNEL_NAME, "display_name": "Python 3 (npcompile)",
                                      "language": "python"}},
          "cells": [{"cell_type": "code", "id": f"c{i}", "metadata": {}, "execution_count": None,
                     "outputs": [], "source": src} for i, src in enumerate(sources)]}
    path.write_text(json.dumps(nb))


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    root = tmp_path_factory.mktemp("lab")
    notebook(root / "demo.ipynb")
    port = free_port()
    log = open(root / "lab.log", "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--ip=127.0.0.1", f"--port={port}", "--no-browser",
         "--allow-root", f"--IdentityProvider.token={TOKEN}", f"--ServerApp.root_dir={root}",
         # a workspace of its own: the user's saved layout would hide the launcher
         f"--LabApp.workspaces_dir={root / 'workspaces'}"],
        stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while True:
        try:
            with urllib.request.urlopen(f"{base}/api/status?token={TOKEN}", timeout=2) as r:
                if r.status == 200:
                    break
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail("JupyterLab did not start:\n" + (root / "lab.log").read_text()[-3000:])
        time.sleep(0.5)
    yield base, root
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.close()


@pytest.fixture(scope="module")
def page(lab):
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        pg = browser.new_page(viewport={"width": 1400, "height": 900})
        yield pg
        browser.close()


def shot(page, tmp_path, name):
    folder = Path(os.environ.get("NPC_SCREENSHOT_DIR") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / name
    page.screenshot(path=str(target))
    assert target.stat().st_size > 10_000
    return target


def test_server_is_jupyterlab_4(lab):
    import jupyterlab
    assert jupyterlab.__version__.startswith("4.")
    base, _ = lab
    with urllib.request.urlopen(f"{base}/api/kernelspecs?token={TOKEN}", timeout=10) as r:
        specs = json.load(r)["kernelspecs"]
    assert specs[KERNEL_NAME]["spec"]["display_name"] == "Python 3 (npcompile)"


def test_launcher_offers_the_npcompile_kernel(lab, page, tmp_path):
    base, _ = lab
    page.goto(f"{base}/lab?token={TOKEN}")
    card = page.locator('.jp-LauncherCard[title="Python 3 (npcompile)"]').first
    card.wait_for(timeout=60_000)
    assert card.is_visible()
    shot(page, tmp_path, "jupyterlab-launcher.png")


def test_npcompile_cell_runs_on_the_kernel_and_reports(lab, page, tmp_path):
    import numpy as np
    x = np.linspace(0.0, 1.0, 200_000)
    expected = round(float((np.sin(x) * 2.0 + np.cos(x) ** 2).sum()), 3)
    base, _ = lab
    page.goto(f"{base}/lab/tree/demo.ipynb?token={TOKEN}")
    # the kernel named in the notebook's metadata starts without asking
    page.locator(".jp-Notebook .jp-Cell").first.wait_for(timeout=60_000)
    page.get_by_text("Python 3 (npcompile) | Idle").first.wait_for(timeout=90_000)
    page.locator(".jp-Notebook .jp-Cell").first.click()
    page.keyboard.press("Shift+Enter")
    page.keyboard.press("Shift+Enter")
    outputs = page.locator(".jp-Notebook .jp-Cell").nth(1).locator(".jp-OutputArea")
    outputs.get_by_text(f"total {expected}").wait_for(timeout=120_000)
    # the report of the traced cell, as the live widget: the graph break at float(),
    # with its reason; a click on it shows its line and hint
    report = outputs.locator(".npcw")
    report.first.wait_for(timeout=30_000)
    assert "float()" in report.first.inner_text()
    report.first.locator(".npcw-table tbody tr").first.click()
    details = report.first.locator(".npcw-details")
    details.get_by_text("Hint:").wait_for(timeout=10_000)
    assert "total = float(y.sum())" in details.inner_text()
    shot(page, tmp_path, "jupyterlab-npcompile-cell.png")
    # the kernels tab: a kernel's generated C++ with the user's lines it computes
    report.first.locator(".npcw-tab", has_text="Kernels").click()
    report.first.locator(".npcw-table tbody tr").first.click()
    details.get_by_text("Generated C++").wait_for(timeout=10_000)
    shot(page, tmp_path, "jupyterlab-npcompile-kernel.png")
    assert "np.sin(x)" in details.inner_text()


def test_a_notebook_run_headless_reads_well_untrusted(lab, page, tmp_path):
    """Run by nbclient (no browser, no live comm), saved, then opened: the notebook is not
    trusted, and no kernel holds the widget's model. The report must still read well."""
    import nbformat
    from nbclient import NotebookClient
    base, root = lab
    nb = nbformat.v4.new_notebook(metadata={"kernelspec": {
        "name": KERNEL_NAME, "display_name": "Python 3 (npcompile)", "language": "python"}})
    nb.cells = [nbformat.v4.new_code_cell("import numpy as np"),
                nbformat.v4.new_code_cell(CELL)]
    NotebookClient(nb, kernel_name=KERNEL_NAME, timeout=120).execute()
    nbformat.write(nb, root / "headless.ipynb")
    # a page of its own: leaving the earlier tests' edited notebook asks first
    page = page.context.browser.new_page(viewport={"width": 1400, "height": 900})
    # (a workspace of its own too: the default one reopens the demo notebook beside it)
    page.goto(f"{base}/lab/workspaces/headless/tree/headless.ipynb?reset&token={TOKEN}")
    outputs = page.locator(".jp-Notebook .jp-Cell").nth(1).locator(".jp-OutputArea")
    outputs.get_by_text("total").first.wait_for(timeout=60_000)
    page.wait_for_timeout(2000)
    shot(page, tmp_path, "jupyterlab-headless-untrusted.png")
    text = outputs.inner_text()
    # the static report, sanitized (no stylesheet, no inline SVG), words still apart
    assert "model not found" not in text
    assert "1 graph break" in text and "Graph breaks 1" in text
    assert "1× float() of an array value" in text and "In [2], line 4" in text
    # its charts are images, whole: no chart label runs into the text
    assert "0.200 ms" not in text and outputs.locator("img.npc-svg").count() >= 1


WIDGET_CELLS = [
    "import numpy as np, npcompile\nw = npcompile.widget()\nw",
    "@npcompile.jit\ndef scaled(x):\n    return np.sin(x) * 2.0\n\n"
    "scaled(np.arange(5.0))\nscaled(np.arange(5.0, dtype=np.float32))   # a recompile",
    "%%npcompile\nv = np.cos(np.linspace(0.0, 1.0, 1000))\nprint('peak', float(v.max()))",
    "%%npcompile\nu = np.exp(-np.linspace(0.0, 1.0, 1000))\nif u.sum() > 1:\n    u = u * 2",
]


def test_the_widget_follows_later_cells_live(lab, page, tmp_path):
    """The report widget in JupyterLab, step by step, each with its screenshot: it shows
    a recompile and a break made by later cells, updates when another cell runs, and
    shows a kernel's generated source when clicked."""
    base, root = lab
    notebook(root / "widget.ipynb", WIDGET_CELLS)
    # a page of its own, in a workspace of its own (see the headless test)
    page = page.context.browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(f"{base}/lab/workspaces/widget/tree/widget.ipynb?reset&token={TOKEN}")
    page.get_by_text("Python 3 (npcompile) | Idle").first.wait_for(timeout=90_000)
    cells = page.locator(".jp-Notebook .jp-Cell")
    cells.first.click()
    page.keyboard.press("Shift+Enter")
    widget = cells.first.locator(".npcw")
    widget.wait_for(timeout=60_000)
    shot(page, tmp_path, "widget-1-empty.png")

    for _ in range(2):                     # the recompile, then a cell with a break
        page.keyboard.press("Shift+Enter")
    cells.nth(2).locator(".jp-OutputArea").get_by_text("peak").wait_for(timeout=60_000)
    tabs = widget.locator(".npcw-tabs")
    tabs.get_by_text("Recompiles (1)").wait_for(timeout=20_000)
    tabs.get_by_text("Graph breaks (1)").wait_for(timeout=20_000)
    widget.locator(".npcw-tab", has_text="Recompiles").click()
    widget.locator(".npcw-table tbody tr").first.click()
    widget.locator(".npcw-details").get_by_text("float64 -> float32").wait_for(timeout=10_000)
    shot(page, tmp_path, "widget-2-recompile.png")

    cells.nth(3).locator(".jp-InputArea-prompt").click()   # (the focus was the widget's)
    page.keyboard.press("Shift+Enter")     # another break: the widget follows, live
    tabs.get_by_text("Graph breaks (2)").wait_for(timeout=30_000)
    widget.locator(".npcw-tab", has_text="Graph breaks").click()
    assert "if u.sum() > 1:" in widget.locator(".npcw-table").inner_text() or \
        "bool() of an array value" in widget.locator(".npcw-table").inner_text()
    shot(page, tmp_path, "widget-3-live-update.png")

    widget.locator(".npcw-tab", has_text="Kernels").click()
    widget.locator(".npcw-table tbody tr").first.click()
    details = widget.locator(".npcw-details")
    details.get_by_text("Generated C++").wait_for(timeout=10_000)
    assert "extern \"C\"" in details.inner_text()
    shot(page, tmp_path, "widget-4-kernel-source.png")
    page.close()


def test_the_widget_in_notebook_7(lab, page, tmp_path):
    """The same widget in Notebook 7 (its server extension runs beside JupyterLab's)."""
    notebook_7 = pytest.importorskip("notebook")
    assert notebook_7.__version__.startswith("7.")
    base, root = lab
    notebook(root / "nb7.ipynb", ["import numpy as np, npcompile", CELL])
    page = page.context.browser.new_page(viewport={"width": 1400, "height": 900})
    page.goto(f"{base}/notebooks/nb7.ipynb?token={TOKEN}")
    first = page.locator(".jp-Notebook .jp-Cell").first
    first.wait_for(timeout=60_000)
    page.wait_for_timeout(3000)            # the kernel starts
    first.click()
    page.keyboard.press("Shift+Enter")
    page.keyboard.press("Shift+Enter")
    report = page.locator(".jp-Notebook .jp-Cell").nth(1).locator(".npcw")
    report.wait_for(timeout=120_000)
    assert "float() of an array value" in report.inner_text()
    shot(page, tmp_path, "notebook7-widget.png")
    page.close()


LESSONS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("0[1-9]_*.ipynb"))


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.stem)
def test_a_teacher_runs_the_lesson_top_to_bottom(lab, page, tmp_path, lesson):
    """As a teacher would: open the lesson in JupyterLab, Run > Run All Cells, and look:
    a screenshot every few cells (teacher-<lesson>-<k>.png); no cell shows an error."""
    base, root = lab
    shutil.copy(lesson, root / lesson.name)
    page = page.context.browser.new_page(viewport={"width": 1300, "height": 1000})
    page.goto(f"{base}/lab/workspaces/{lesson.stem}/tree/{lesson.name}?reset&token={TOKEN}")
    page.get_by_text("Python 3 (npcompile) | Idle").first.wait_for(timeout=90_000)
    page.get_by_text("Run", exact=True).first.click()
    page.get_by_text("Run All Cells", exact=True).first.click()
    page.wait_for_timeout(2000)
    deadline = time.monotonic() + 240
    while page.locator(".jp-InputPrompt", has_text="[*]").count() and time.monotonic() < deadline:
        page.wait_for_timeout(500)
    cells = len(json.loads(lesson.read_text())["cells"])
    page.locator(".jp-Notebook .jp-Cell").first.locator(".jp-InputPrompt").click()
    page.keyboard.press("Escape")           # command mode: j moves down and scrolls there
    for i in range(cells):
        if i % 4 == 0:
            page.wait_for_timeout(500)
            shot(page, tmp_path, f"teacher-{lesson.stem}-{i // 4}.png")
        page.keyboard.press("j")
    assert page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']").count() == 0
    assert "Traceback" not in page.locator(".jp-Notebook").inner_text()
    page.close()
