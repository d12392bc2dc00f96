"""The installed npcompile-viewer and Xvfb, for the tests that run it (here and in
tests/kernel): $NPC_VIEWER, else PATH, else the default prefix (~/.local/bin)."""
import os
import shutil
from pathlib import Path

import pytest


def viewer_path():
    for candidate in (os.environ.get("NPC_VIEWER"), shutil.which("npcompile-viewer"),
                      str(Path.home() / ".local" / "bin" / "npcompile-viewer")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def require_viewer():
    """The viewer's path; the test fails without it (a `make install` missing) and skips
    without xvfb-run."""
    path = viewer_path()
    if path is None:
        pytest.fail("npcompile-viewer is not installed: run `make install` (or set NPC_VIEWER)")
    if shutil.which("xvfb-run") is None:
        pytest.skip("xvfb-run is not installed (Debian package xvfb)")
    return path
