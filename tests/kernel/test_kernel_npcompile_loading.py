"""How the kernel loads the npcompile package and registers its magics, driven
by stand-in packages put first on PYTHONPATH of a kernel of our own."""
import os
import textwrap

import pytest
from jupyter_client.manager import start_new_kernel

from .kernel_helpers import KERNEL_NAME, result_text, run_cell, stdout_text

FAKE_MAGICS = '''
def probe(line):
    return "line:" + line

def probe_cell(line, cell):
    return "cell:" + line + ":" + cell.strip()

MAGICS = [
    ("line", "npc_probe", probe),
    ("bogus-kind", "npc_broken", probe),   # rejected by IPython; must not stop the others
    ("cell", "npc_probe_cell", probe_cell),
]
'''


def start_kernel_with(tmp_path, package_files):
    pkg = tmp_path / "site" / "npcompile"
    pkg.mkdir(parents=True)
    for name, text in package_files.items():
        (pkg / name).write_text(textwrap.dedent(text))
    env = dict(os.environ)
    env["PYTHONPATH"] = str(tmp_path / "site")
    stderr = open(tmp_path / "kernel.stderr", "w")
    km, kc = start_new_kernel(kernel_name=KERNEL_NAME, startup_timeout=60, env=env, stderr=stderr)
    return km, kc, tmp_path / "kernel.stderr", stderr


@pytest.fixture
def stand_in_kernel(kernelspec, tmp_path, request):
    started = []

    def start(files):
        km, kc, log, handle = start_kernel_with(tmp_path, files)
        started.append((km, kc, handle))
        return kc, log

    yield start
    for km, kc, handle in started:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
        handle.close()


def test_magics_of_the_package_are_registered_and_run(stand_in_kernel):
    kc, log = stand_in_kernel({"__init__.py": "__version__ = 'stand-in'\n", "magics.py": FAKE_MAGICS})
    content, outputs = run_cell(kc, "%npc_probe hello")
    assert content["status"] == "ok", content
    assert result_text(outputs) == "'line:hello'"
    content, outputs = run_cell(kc, "%%npc_probe_cell arg\nbody of the cell")
    assert content["status"] == "ok", content
    assert result_text(outputs) == "'cell:arg:body of the cell'"
    # Cell magics keep execution counts in step with the frontend.
    after, _ = run_cell(kc, "1")
    assert after["execution_count"] == content["execution_count"] + 1
    content, outputs = run_cell(kc, "import npcompile; print(npcompile.__version__)")
    assert stdout_text(outputs) == "stand-in\n"
    assert "npc_broken" in log.read_text()


def test_broken_package_leaves_a_plain_python_kernel(stand_in_kernel):
    kc, log = stand_in_kernel({"__init__.py": "raise RuntimeError('stand-in is broken')\n"})
    content, outputs = run_cell(kc, "import numpy as np\nint(np.arange(5).sum())")
    assert content["status"] == "ok", content
    assert result_text(outputs) == "10"
    message = log.read_text()
    assert "cannot import the npcompile Python package" in message
    assert "stand-in is broken" in message
    assert "plain Python kernel" in message
