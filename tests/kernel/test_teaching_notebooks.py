"""The teaching notebooks' claims, read from their executed outputs: each ends with a
CHECKS line its lesson stands on (graphs, no fallback, NumPy's values), and shows a plot
where it says it does."""
import json

import nbformat
import pytest
from nbclient import NotebookClient

from .kernel_helpers import KERNEL_NAME
from .test_kernel_notebook import NOTEBOOKS


def run(name):
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    NotebookClient(nb, kernel_name=KERNEL_NAME, timeout=300, startup_timeout=60,
                   resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    text = "".join(o.get("text", "") for o in outputs if o["output_type"] == "stream")
    checks = [json.loads(line[len("CHECKS "):]) for line in text.splitlines()
              if line.startswith("CHECKS ")]
    assert len(checks) == 1, text[-2000:]
    plots = sum("image/png" in o.get("data", {}) for o in outputs)
    widgets = sum("application/vnd.jupyter.widget-view+json" in o.get("data", {}) for o in outputs)
    return checks[0], plots, widgets, text


def test_fusion_one_graph_one_kernel_fewer_bytes(kernelspec):
    checks, plots, widgets, _ = run("01_fusion_sin_cos.ipynb")
    assert checks["graphs"] == 1 and checks["graph_breaks"] == 0 and checks["fallbacks"] == 0
    assert checks["equal_to_numpy"] and checks["eager_bytes_over_fused"] == 3.5
    assert plots >= 1 and widgets == 1


def test_monte_carlo_pi_is_numpys_stream_compiled(kernelspec):
    checks, plots, widgets, text = run("02_monte_carlo_pi.ipynb")
    assert checks["equal_to_numpy"] and checks["fallbacks"] == 0 and checks["graph_breaks"] == 0
    assert checks["graphs"] >= 1
    assert text.count("identical: True") == 3
    assert plots >= 1 and widgets == 1


def test_graph_breaks_and_their_fixes(kernelspec):
    checks, _, widgets, text = run("03_graph_breaks_and_recompiles.ipynb")
    assert checks["if_breaks_before"] == 1 and checks["if_breaks_after"] == 0
    assert checks["print_breaks_before"] == 1 and checks["print_breaks_after"] == 0
    assert checks["unsupported_breaks"] == 1 and checks["fallbacks"] == 0
    # a dtype, then a length (and the dtype back), then a length once more, now dynamic
    assert checks["recompiles"] == 3 and "now dynamic" in text
    assert "In [" in text and "/tmp/" not in text     # cells named as the user sees them
    assert widgets == 1


def test_a_loop_of_1000_steps_compiles_once(kernelspec):
    checks, plots, _, text = run("04_loops_heat_equation.ipynb")
    assert checks["compiles_for_1000_steps"] == 1 and checks["fallbacks"] == 0
    assert checks["equal_to_numpy"]
    assert "1000 iterations, one compiled body" in text
    assert plots >= 2


def test_kmeans_step_one_graph_and_the_gpu_cell_says_why_it_skips(kernelspec):
    checks, plots, _, text = run("05_kmeans_step.ipynb")
    assert checks["graphs_of_one_step"] == 1 and checks["graph_breaks"] == 0
    assert checks["fallbacks"] == 0 and checks["equal_to_numpy"]
    assert "No GPU on this machine" in text or "GPU: same centres as NumPy: True" in text
    assert plots >= 2


def test_genetic_algorithm_populations_are_compiled_with_numpys_values(kernelspec):
    checks, plots, widgets, text = run("06_genetic_algorithm_fitness.ipynb")
    assert checks["equal_to_numpy"] and checks["trig_dtype"] == "float16"
    assert checks["graph_breaks"] == 0 and checks["fallbacks"] == 0 and checks["graphs"] == 3
    assert text.count("identical to NumPy: True") == 3
    assert plots >= 1 and widgets == 1


def test_the_gpu_lesson_says_where_it_runs(kernelspec):
    checks, plots, widgets, text = run("07_numpy_on_the_gpu.ipynb")
    assert checks["equal_to_numpy"] and checks["graph_breaks"] == 0
    if checks["gpu"]:
        assert checks["fallbacks"] == [] and "Running on the GPU." in text
    else:   # plainly, at the top, and as the report's fallbacks
        assert text.startswith("NO GPU HERE: everything below runs on the CPU")
        assert all(f.startswith("CUDA unavailable, running on the CPU") for f in checks["fallbacks"])
    assert plots >= 1 and widgets == 1


@pytest.mark.parametrize("path", sorted(NOTEBOOKS.glob("0[1-9]_*.ipynb")), ids=lambda p: p.name)
def test_each_lesson_opens_with_goals_and_ends_with_exercises(path):
    nb = nbformat.read(path, as_version=4)
    md = [c.source for c in nb.cells if c.cell_type == "markdown"]
    assert "What you will learn" in md[0]
    assert any(s.startswith("## Exercises") for s in md)
