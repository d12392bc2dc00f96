"""Ctrl-C stops a long compiled kernel (issue 16): SIGINT during a fused kernel of
seconds raises KeyboardInterrupt within a second, and the process goes on working."""
import subprocess
import sys

import pytest

from test_trace_loops import COMPILED, DEVICE

_LONG_KERNEL = """
import time
import numpy as np, npcompile
def heavy(x):
    y = x
    for _ in range(80):
        y = np.sin(y) * 1.0001 + 0.1
    return y.sum()
j = npcompile.jit(heavy, choose=False)
j(np.ones(1000))                                  # compiled before the long call
x = np.linspace(0, 1, 40_000_000)
print("ready", flush=True)      # the parent sends SIGINT 0.5 s from now
t0 = time.time()
try:
    j(x)
    print("finished", time.time() - t0)
except KeyboardInterrupt:
    print("interrupted", time.time() - t0)
print("usable", bool(np.isclose(j(np.ones(4)), heavy(np.ones(4)), rtol=1e-12)))
"""


def assert_ctrl_c_stops(script, env=None):
    """Run `script` in a child, send it SIGINT 0.5 s after it prints "ready": it must
    print "interrupted <seconds>" (under 1.5 s) and then "usable True"."""
    import os
    import signal
    import time
    # from outside, as a terminal's Ctrl-C: a timer thread of the child would need the
    # GIL, which a kernel on one thread holds
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=env or dict(os.environ))
    assert child.stdout.readline().strip() == "ready"
    time.sleep(0.5)
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=300)
    assert child.returncode == 0, err
    lines = out.split("\n")
    what, seconds = lines[0].split()
    assert what == "interrupted", out
    assert float(seconds) < 1.5, out                 # the signal came at 0.5 s
    assert lines[1] == "usable True", out


@pytest.mark.skipif(not COMPILED or DEVICE == "cuda", reason="a CPU kernel is interrupted")
@pytest.mark.parametrize("threads", ["1", "2"])
def test_ctrl_c_stops_a_long_kernel(threads):
    import os
    # 80 sines of 4e7 values: seconds, were it not stopped
    assert_ctrl_c_stops(_LONG_KERNEL, dict(os.environ, NPC_NUM_THREADS=threads))


_LONG_GPU_WAIT = """
import time
import numpy as np, npcompile
from npcompile.backends import cuda_runtime as rt
# a kernel that holds the GPU for about 4 s, whatever its speed
SPIN = (
    'extern "C" __global__ void npc_spin(long long cycles) {'
    '  long long t0 = clock64(); while (clock64() - t0 < cycles) { }'
    '}')
cu = rt.native()
ptx = cu.compile_ptx(SPIN, "npc_spin", rt.arch(), rt.NVRTC_OPTIONS)["ptx"]
fn = cu.load(ptx, "npc_spin")["function"]
j = npcompile.jit(lambda a: np.sin(a) * 2, device="cuda", choose=False)
small = np.ones(4)
j(small).get()                                    # compiled before the long wait
cu.launch(fn, 1, 1, [], [8_000_000_000], False)   # 4 s at 2 GHz, longer when slower
print("ready", flush=True)      # the parent sends SIGINT 0.5 s from now
t0 = time.time()
try:
    npcompile.synchronize()
    print("finished", time.time() - t0)
except KeyboardInterrupt:
    print("interrupted", time.time() - t0)
print("usable", bool(np.allclose(j(small).get(), np.sin(small) * 2)))
"""


def test_ctrl_c_stops_a_wait_for_the_gpu():
    """npcompile.synchronize() (and a download) waits by polling the stream: Ctrl-C
    during a kernel of seconds raises KeyboardInterrupt at once, the kernel runs on, and
    the next call waits for it and computes (cuStreamSynchronize could not be left until
    the GPU was done)."""
    import npcompile
    if not npcompile.cuda_available()[0]:
        pytest.skip("needs a GPU")
    assert_ctrl_c_stops(_LONG_GPU_WAIT)
