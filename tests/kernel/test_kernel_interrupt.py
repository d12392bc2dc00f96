"""SIGINT (what Jupyter sends on "interrupt kernel") stops the running cell
within a second, and does nothing when the kernel is idle."""
import time

import pytest

from .kernel_helpers import iopub_until_idle, result_text, run_cell, shell_reply

LIMIT_S = 1.0


def interrupt_cell(km, kc, code):
    """Start code, interrupt it once it runs; return (reply content, latency in s)."""
    msg_id = kc.execute(code, stop_on_error=False)
    # Wait until the kernel is really in the cell, then give it time to get deep in.
    while True:
        msg = kc.get_iopub_msg(timeout=30)
        if msg["parent_header"].get("msg_id") == msg_id and msg["msg_type"] == "execute_input":
            break
    time.sleep(0.5)
    start = time.monotonic()
    km.interrupt_kernel()
    reply = shell_reply(kc, msg_id, timeout=10)
    latency = time.monotonic() - start
    iopub_until_idle(kc, msg_id)
    return reply["content"], latency


@pytest.mark.parametrize("code", [
    "while True:\n    pass",
    "import time\ntime.sleep(60)",
    "import numpy as np\nwhile True:\n    np.sqrt(np.arange(1000.0)).sum()",
    # one compiled kernel of seconds (80 fused sines of 4e7 values): it stops between
    # grains of rows, through the flag the kernel's interrupt thread raises
    "import numpy as np, npcompile\n"
    "def heavy(x):\n"
    "    for _ in range(80):\n"
    "        x = np.sin(x) * 1.0001 + 0.1\n"
    "    return x.sum()\n"
    "j = npcompile.jit(heavy, choose=False)\n"
    "j(np.ones(1000))\n"
    "x = np.linspace(0, 1, 40_000_000)\n"
    "while True:\n"
    "    j(x)",
], ids=["busy-loop", "sleep", "numpy-loop", "compiled-kernel"])
def test_interrupt_stops_cell_quickly(km, kc, code):
    content, latency = interrupt_cell(km, kc, code)
    print(f"interrupt latency {code.splitlines()[-1].strip()!r}: {latency * 1000:.1f} ms")
    assert content["status"] == "error"
    assert content["ename"] == "KeyboardInterrupt"
    assert latency < LIMIT_S
    # The kernel answers afterwards, with no interrupt left over.
    content, outputs = run_cell(kc, "import time; time.sleep(0.2); 40 + 2")
    assert content["status"] == "ok"
    assert result_text(outputs) == "42"


def test_interrupt_while_idle_is_harmless(km, kc):
    content, _ = run_cell(kc, "counter = 1")
    assert content["status"] == "ok"
    km.interrupt_kernel()
    time.sleep(0.5)
    km.interrupt_kernel()
    time.sleep(0.5)
    assert km.is_alive()
    # Neither interrupt may surface later in a cell that sleeps or loops.
    content, outputs = run_cell(kc, "import time\ntime.sleep(0.5)\nfor i in range(200000):\n    counter += 1\ncounter")
    assert content["status"] == "ok", content
    assert result_text(outputs) == "200001"


def test_execution_count_keeps_counting_after_interrupt(km, kc):
    first, _ = run_cell(kc, "1")
    interrupt_cell(km, kc, "while True: pass")
    after, _ = run_cell(kc, "2")
    assert after["execution_count"] == first["execution_count"] + 2
