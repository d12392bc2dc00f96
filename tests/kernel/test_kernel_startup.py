"""What the kernel sets up at start: the project's environment over Debian's Python, the npcompile package and
its magics, bare exception names, history with real line numbers."""
import json
import os

from .kernel_helpers import KERNEL_VERSION, result_text, run_cell, stdout_text


def kernel_eval(kc, expr):
    content, outputs = run_cell(kc, f"import json as _j; print(_j.dumps({expr}))")
    assert content["status"] == "ok", content
    return json.loads(stdout_text(outputs))


def test_kernelspec(kernelspec):
    assert kernelspec.display_name == "Python 3 (npcompile)"
    assert kernelspec.language == "python"
    assert kernelspec.argv[0].endswith("/bin/xnpcompile")
    assert kernelspec.argv[0].startswith("/")
    assert kernelspec.argv[1:] == ["-f", "{connection_file}"]


def test_embedded_python_is_the_projects_environment_over_debians(kc):
    info = kernel_eval(kc, "{'exe': __import__('sys').executable, 'argv': __import__('sys').argv, "
                           "'prefix': __import__('sys').prefix, 'base': __import__('sys').base_prefix, "
                           "'numpy': __import__('numpy').__file__, "
                           "'widgets': __import__('ipywidgets').__version__, "
                           "'anywidget': __import__('anywidget').__file__}")
    # the virtual environment made from Debian's interpreter ...
    assert info["base"] == "/usr"
    assert info["prefix"] != "/usr" and info["exe"] == info["prefix"] + "/bin/python"
    assert os.path.isfile(os.path.join(info["prefix"], "pyvenv.cfg"))
    # ... that sees Debian's NumPy and the environment's PyPI packages
    assert info["numpy"].startswith("/usr/lib/python3/dist-packages/")
    assert info["widgets"].startswith("8.")
    assert info["anywidget"].startswith(info["prefix"])
    assert len(info["argv"]) == 1 and info["argv"][0].endswith("xnpcompile")


def test_npcompile_imported_at_startup(kc):
    # Imported by the kernel itself, before any cell did.
    assert kernel_eval(kc, "'npcompile' in __import__('sys').modules") is True
    assert kernel_eval(kc, "__import__('npcompile').__version__") == KERNEL_VERSION


def test_every_magic_of_npcompile_is_registered(kc):
    check = (
        "import npcompile.magics as _m\n"
        "_table = get_ipython().magics_manager.magics\n"
        "_missing = [(k, n) for k, n, f in _m.MAGICS if _table[k].get(n) is not f]\n"
        "print(_j.dumps({'n': len(_m.MAGICS), 'missing': _missing}))"
    )
    content, outputs = run_cell(kc, "import json as _j\n" + check)
    assert content["status"] == "ok", content
    report = json.loads(stdout_text(outputs))
    assert report["missing"] == [], report


def test_error_reply_and_message_use_bare_class_name(kc):
    content, outputs = run_cell(kc, "class NpcTestError(Exception): pass\nraise NpcTestError('boom')")
    assert content["status"] == "error"
    assert content["ename"] == "NpcTestError"
    assert content["evalue"] == "boom"
    errors = [m["content"] for m in outputs if m["msg_type"] == "error"]
    assert [(e["ename"], e["evalue"]) for e in errors] == [("NpcTestError", "boom")]


def history(kc, **request):
    msg_id = kc.history(**request)
    while True:
        reply = kc.get_shell_msg(timeout=10)
        if reply["parent_header"]["msg_id"] == msg_id:
            return reply["content"]


def test_history_line_numbers_outputs_and_search(kc):
    first, _ = run_cell(kc, "hist_a = 11")
    second, out = run_cell(kc, "hist_a * 2")
    assert result_text(out) == "22"
    run_cell(kc, "'not stored'", store_history=False)
    run_cell(kc, "hist_a * 2")
    n0 = first["execution_count"]

    tail = history(kc, hist_access_type="tail", n=3, output=True, raw=True)
    assert tail["status"] == "ok"
    entries = tail["history"]
    assert [e[2][0] for e in entries] == ["hist_a = 11", "hist_a * 2", "hist_a * 2"]
    assert [e[2][1] for e in entries] == [None, "22", "22"]
    lines = [e[1] for e in entries]
    assert lines[0] == n0 and lines[1] == second["execution_count"] and lines[2] > lines[1]
    session = entries[0][0]

    rng = history(kc, hist_access_type="range", session=session, start=n0, stop=n0 + 2, raw=True, output=False)
    assert [(e[1], e[2]) for e in rng["history"]] == [(n0, "hist_a = 11"), (n0 + 1, "hist_a * 2")]
    rng0 = history(kc, hist_access_type="range", session=0, start=n0, stop=n0 + 1, raw=True, output=False)
    assert [e[2] for e in rng0["history"]] == ["hist_a = 11"]
    other = history(kc, hist_access_type="range", session=session + 7, start=1, stop=100, raw=True, output=False)
    assert other["history"] == []

    found = history(kc, hist_access_type="search", pattern="hist_a*", raw=True, output=False, n=10)
    assert [e[2] for e in found["history"]] == ["hist_a = 11", "hist_a * 2", "hist_a * 2"]
    unique = history(kc, hist_access_type="search", pattern="hist_a*", raw=True, output=False, n=10, unique=True)
    assert [e[2] for e in unique["history"]] == ["hist_a = 11", "hist_a * 2"]
    last = history(kc, hist_access_type="search", pattern="hist_a*", raw=True, output=False, n=1)
    assert [e[1] for e in last["history"]] == [lines[2]]
    # The glob matches whole inputs, as IPython's.
    assert history(kc, hist_access_type="search", pattern="a * 2", raw=True, output=False, n=10)["history"] == []
