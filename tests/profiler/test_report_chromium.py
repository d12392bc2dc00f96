"""The notebook report of a traced session, rendered by headless Chromium (Debian's): the
screenshot shows a styled page, and the DOM Chromium built holds the graph break, its line
and its hint. Skipped where chromium is not installed."""
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from PIL import Image

HERE = Path(__file__).parent
WINDOW = (1200, 1600)
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
# The line of the program's graph break (`if z.sum() > 0:`), counted from 1.
BREAK_LINE = next(i for i, line in enumerate((HERE / "traced_session.py").read_text().splitlines(), 1)
                  if "if z.sum() > 0:" in line)
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")


def chromium(tmp_path, *args):
    # Root in a container needs --no-sandbox; a profile of its own keeps runs independent.
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
           f"--user-data-dir={tmp_path / 'profile'}", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def report_page(tmp_path_factory):
    d = tmp_path_factory.mktemp("report")
    page = d / "report.html"
    subprocess.run([sys.executable, str(HERE / "traced_session.py"), str(d), "--html", str(page)],
                   capture_output=True, text=True, timeout=120, check=True)
    return page


def test_dom_holds_the_break_with_its_line_and_hint(report_page, tmp_path):
    run = chromium(tmp_path, "--dump-dom", report_page.as_uri())
    assert run.returncode == 0, run.stderr[-2000:]
    dom = run.stdout
    assert 'class="npcprof-v1"' in dom
    assert "bool() of an array value" in dom
    assert f"traced_session.py:{BREAK_LINE}" in dom
    assert "if z.sum() &gt; 0:" in dom            # the source line, escaped
    assert "np.where" in dom                      # the hint
    assert "x: dtype float64 -&gt; float32" in dom  # the recompile's guard diff
    assert "data:image/svg+xml;base64," in dom and "<script" not in dom


def test_screenshot_is_a_rendered_report(report_page, tmp_path):
    png = tmp_path / "report.png"
    run = chromium(tmp_path, f"--screenshot={png}", f"--window-size={WINDOW[0]},{WINDOW[1]}",
                   report_page.as_uri())
    assert run.returncode == 0, run.stderr[-2000:]
    assert png.stat().st_size > 20_000
    with Image.open(png) as im:
        im.verify()
    with Image.open(png) as im:
        assert im.size == WINDOW
        rgb = im.convert("RGB")
    colours = {c: n for n, c in rgb.getcolors(maxcolors=1 << 22)}
    assert len(colours) > 200, "a blank or unstyled page"
    assert colours.get((255, 255, 255), 0) < 0.95 * WINDOW[0] * WINDOW[1]
    # The break's count pill (#9a6700) and the cpu timing bars (#4e79a7): CSS and SVG applied.
    assert colours.get((0x9a, 0x67, 0x00), 0) > 100
    assert colours.get((0x4e, 0x79, 0xa7), 0) > 500
