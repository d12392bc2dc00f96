"""%%npcompile in the installed kernel, run as a notebook with nbclient: the scenarios
the reports must show right (breaks with their cell line, recompiles, the report's MIME
bundle, usage errors, user errors that keep the namespace)."""
import json

import nbformat
import pytest
from nbclient import NotebookClient

from .kernel_helpers import KERNEL_NAME

REPORT_MIME = "application/vnd.npcompile.report+json"

CELLS = [
    "import numpy as np\nx = np.arange(10.0)",
    "%%npcompile --report\ny = x * 2\nif y.sum() > 0:\n    y = y + 1\ny[:3]",
    "%%npcompile\nv = np.cumsum(x) + x.astype(np.float32)\nint(v.dtype == np.float64)",
    "%%npcompile\nx_int = np.arange(4)\ns = (x_int * 3).sum()\ns",
    "x = np.arange(10, dtype=np.float32)",
    "%%npcompile --report\ny = x * 2\nif y.sum() > 0:\n    y = y + 1\ny[:3]",
    "%%npcompile --bogus\nx",
    "%%npcompile\nkept = 1\nz = x + undefined_name\nnever = 2",
    "(type(x).__name__, type(y).__name__, 'kept' in dir(), 'never' in dir())",
    "%npcompile_report --all --json",
]


@pytest.fixture(scope="module")
def executed(kernelspec):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in CELLS]
    NotebookClient(nb, kernel_name=KERNEL_NAME, timeout=120, allow_errors=True).execute()
    return nb.cells


def _outputs(cell, kind):
    return [o for o in cell.outputs if o.output_type == kind]


def test_break_in_a_cell_is_reported_with_its_line(executed):
    cell = executed[1]
    result = _outputs(cell, "execute_result")
    assert result and "array([1., 3., 5.])" in result[0].data["text/plain"]
    shown = _outputs(cell, "display_data")
    assert shown, cell.outputs
    bundle = shown[0].data
    assert "bool() of an array value" in bundle["text/html"]
    assert "np.where" in bundle["text/html"]
    report = bundle[REPORT_MIME]
    if isinstance(report, str):
        report = json.loads(report)
    brk = report["breaks"][0]
    assert brk["lineno"] == 3 and brk["code"] == "if y.sum() > 0:"   # the magic's line counted
    # --report measures one eager run of the cell's compiled graph: the summary has a speedup
    assert report["summary"]["eager_ms"] > 0 and report["summary"]["speedup"] > 0
    assert "speedup over eager NumPy" in bundle["text/html"]
    assert "speedup over eager NumPy" in bundle["text/plain"]


def test_unsupported_function_and_scalars(executed):
    assert _outputs(executed[2], "execute_result")[0].data["text/plain"] == "1"
    assert _outputs(executed[3], "execute_result")[0].data["text/plain"] == "18"


def test_dtype_change_is_a_recompile_with_its_reason(executed):
    report = _outputs(executed[5], "display_data")[0].data[REPORT_MIME]
    if isinstance(report, str):
        report = json.loads(report)
    reasons = [r["reason"] for r in report["recompiles"]]
    assert any("x: dtype float64 -> float32" in r for r in reasons), reasons


def test_bad_option_is_a_usage_message(executed):
    # IPython prints a UsageError as a message on stderr, never a traceback
    assert not _outputs(executed[6], "error")
    text = "".join(o.text for o in _outputs(executed[6], "stream"))
    assert "UsageError: unrecognized arguments: --bogus" in text and "usage: %%npcompile" in text


def test_user_error_keeps_namespace(executed):
    err = _outputs(executed[7], "error")
    assert err and err[0].ename == "NameError"
    assert any("undefined_name" in line for line in err[0].traceback)
    assert _outputs(executed[8], "execute_result")[0].data["text/plain"] == \
        "('ndarray', 'ndarray', True, False)"


def test_session_report_as_json(executed):
    shown = _outputs(executed[9], "display_data")
    assert shown and REPORT_MIME in shown[0].data
