"""What a user of ipykernel takes for granted: a print is one output, the Python version
the kernel reports is the one it runs, and `exit` ends a console session."""
import platform

from .kernel_helpers import run_cell, shell_reply


def streams(outputs):
    return [m["content"]["text"] for m in outputs if m["msg_type"] == "stream"]


def test_a_print_is_one_stream_message(kc):
    reply, outs = run_cell(kc, "print('a', 1, 'b')\nprint('c', end='')\nprint('d', end='')")
    assert reply["status"] == "ok"
    # the first line as it ends, the partial line when the cell ends
    assert streams(outs) == ["a 1 b\n", "cd"]


def test_stderr_is_buffered_by_lines_too(kc):
    reply, outs = run_cell(kc, "import sys\nsys.stderr.write('x')\nsys.stderr.write('y\\n')")
    assert [m["content"] for m in outs if m["msg_type"] == "stream"] == [
        {"name": "stderr", "text": "xy\n"}]


def test_language_info_version_is_the_running_pythons(kc):
    msg_id = kc.kernel_info()
    info = shell_reply(kc, msg_id)["content"]
    assert info["language_info"]["version"] == platform.python_version()


def test_exit_asks_the_frontend_to_end_the_session(kc):
    reply, _ = run_cell(kc, "exit")
    assert reply["status"] == "ok"
    assert {"source": "ask_exit", "keepkernel": False} in reply["payload"]
    reply, _ = run_cell(kc, "1 + 1")       # asked once: the next cell runs as usual
    assert reply["status"] == "ok" and reply["payload"] == []


def test_a_break_in_a_function_of_a_cell_names_the_cell(kc):
    reply, _ = run_cell(kc, "import numpy as np, npcompile\n\n"
                            "@npcompile.jit\n"
                            "def halve_if_big(x):\n"
                            "    if x.sum() > 3:\n"
                            "        x = x / 2\n"
                            "    return x")
    defined_in = reply["execution_count"]
    run_cell(kc, "npcompile.reset(); halve_if_big(np.arange(4.0))")
    reply, outs = run_cell(kc, "b = npcompile.report()['graph_breaks'][0]\n"
                               "print(b['filename'], b['lineno'], b['code'])")
    # not the temporary file the cell was compiled from: its prompt number, as
    # ipykernel's "Cell In[4], line 5"
    assert streams(outs) == [f"<In [{defined_in}]> 5 if x.sum() > 3:\n"]


def test_an_error_in_a_traced_cell_names_the_cell(kc):
    reply, outs = run_cell(kc, "%%npcompile\nimport numpy as np\nz = np.arange(3.0) + undefined_name")
    assert reply["status"] == "error" and reply["ename"] == "NameError"
    trace = "\n".join(reply["traceback"])
    assert f"In [{reply['execution_count']}], line 3" in trace, trace


def test_auto_mode_traces_every_cell_and_can_be_switched_off(kc):
    reply, _ = run_cell(kc, "%npcompile on")
    assert reply["status"] == "ok"
    try:
        reply, outs = run_cell(kc, "print('plain', 1)")
        assert reply["status"] == "ok" and streams(outs) == ["plain 1\n"]
        reply, _ = run_cell(kc, "import numpy as np, npcompile\nnpcompile.reset()\n"
                                "y = np.arange(5.0) * 2\nif y.sum() > 0:\n    y = y + 1")
        assert reply["status"] == "ok"
        count = reply["execution_count"]
        reply, outs = run_cell(kc, "b = npcompile.report()['graph_breaks'][0]\n"
                                   "print(b['filename'], b['lineno'], b['code'])")
        # traced without a magic line of its own: its lines are the cell's
        assert streams(outs) == [f"<In [{count}]> 4 if y.sum() > 0:\n"]
    finally:
        reply, outs = run_cell(kc, "%npcompile off")
    assert reply["status"] == "ok" and streams(outs) == ["npcompile: automatic tracing off\n"]
