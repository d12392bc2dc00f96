"""Notebooks executed through the npcompile kernel with nbclient, as
`make run HEADLESS=1` and the Notebook frontend do."""
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError
from nbformat.v4 import new_code_cell, new_notebook

from .kernel_helpers import KERNEL_NAME

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"


def execute(nb, allow_errors=False, path=None):
    client = NotebookClient(nb, kernel_name=KERNEL_NAME, timeout=120, startup_timeout=60,
                            allow_errors=allow_errors,
                            resources={"metadata": {"path": str(path or NOTEBOOKS)}})
    client.execute()
    return nb


def test_notebook_with_error_cell(kernelspec):
    nb = new_notebook(cells=[
        new_code_cell("import numpy as np\nx = np.arange(6).reshape(2, 3)\nint(x.sum())"),
        new_code_cell("x.reshape(4, 4)"),
        new_code_cell("print('after the error', x.shape)"),
    ])
    execute(nb, allow_errors=True)
    first, failing, after = nb.cells
    assert first.execution_count == 1
    assert first.outputs[0]["output_type"] == "execute_result"
    assert first.outputs[0]["data"]["text/plain"] == "15"

    errors = [o for o in failing.outputs if o["output_type"] == "error"]
    assert len(errors) == 1
    assert errors[0]["ename"] == "ValueError"
    assert errors[0]["evalue"] == "cannot reshape array of size 6 into shape (4,4)"
    assert any("reshape" in line for line in errors[0]["traceback"])

    assert after.execution_count == 3
    # xeus-python sends each write() as its own stream message.
    assert "".join(o["text"] for o in after.outputs if o["output_type"] == "stream") == \
        "after the error (2, 3)\n"


def test_error_cell_stops_a_strict_run(kernelspec):
    nb = new_notebook(cells=[new_code_cell("raise KeyError('missing')"), new_code_cell("1")])
    with pytest.raises(CellExecutionError) as info:
        execute(nb)
    assert info.value.ename == "KeyError"
    assert info.value.evalue == "'missing'"
    assert nb.cells[1].outputs == []


@pytest.mark.parametrize("path", sorted(NOTEBOOKS.glob("*.ipynb")), ids=lambda p: p.name)
def test_teaching_notebook_runs_without_error(kernelspec, path):
    nb = nbformat.read(path, as_version=4)
    assert nb.metadata.kernelspec.name == KERNEL_NAME
    execute(nb)
    code_cells = [c for c in nb.cells if c.cell_type == "code"]
    assert code_cells and all(c.execution_count for c in code_cells)
    for cell in code_cells:
        assert not [o for o in cell.outputs if o["output_type"] == "error"]
        assert not [o for o in cell.outputs if o.get("name") == "stderr"], cell.source


def test_tour_shows_the_kernel_loaded_npcompile(kernelspec):
    nb = execute(nbformat.read(NOTEBOOKS / "00_kernel_tour.ipynb", as_version=4))
    text = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    assert "Python 3.11" in text
    assert "npcompile loaded by the kernel: True" in text
    assert "rows sum to one: True" in text
