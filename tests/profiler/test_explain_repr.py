"""npcompile.explain(f)(*args) in a notebook: a MIME bundle with the profiler's HTML report
of that one call (breaks with their lines and hints), its own text, and the report JSON."""
import numpy as np
import pytest
from IPython.core.formatters import DisplayFormatter

import npcompile
from npcompile._native import profiler as prof


@pytest.fixture(autouse=True)
def fresh():
    npcompile.reset()
    yield
    npcompile.reset()


def clipped_mean(x):
    y = np.sqrt(x) * 2.0
    if y.max() > 3.0:  # a graph break
        y = np.minimum(y, 3.0)
    return y.mean()


def test_bundle_shows_this_call(tmp_path):
    e = npcompile.explain(clipped_mean)(np.arange(16.0))
    assert e.graph_break_count == 1
    bundle = e._repr_mimebundle_()
    assert bundle["text/plain"] == repr(e)
    html = bundle["text/html"]
    assert html.startswith('<div class="npcprof-v1"')
    assert "bool() of an array value" in html
    assert "if y.max() &gt; 3.0:" in html
    assert "np.where" in html  # the hint
    report = bundle[prof.REPORT_MIME]
    assert report["summary"]["traces"] == 1
    assert [b["lineno"] for b in report["breaks"]] == [e.breaks[0].lineno]
    assert "npcprof-v1" in e._repr_html_()


def test_later_calls_do_not_change_it():
    e = npcompile.explain(clipped_mean)(np.arange(16.0))
    before = e._repr_mimebundle_()[prof.REPORT_MIME]
    npcompile.jit(lambda x: (x + 1).sum())(np.arange(5.0))
    assert e._repr_mimebundle_()[prof.REPORT_MIME] == before
    assert "&lt;lambda&gt;" not in e._repr_html_()
    assert "&lt;lambda&gt;" in prof.render_html()  # the whole session has it


def test_ipython_displays_html():
    e = npcompile.explain(clipped_mean)(np.arange(4.0))
    data, _ = DisplayFormatter().format(e)
    assert "text/html" in data and "npcprof-v1" in data["text/html"]
    assert data["text/plain"].startswith("graphs: ")
