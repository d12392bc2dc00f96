"""npcompile: trace NumPy code into fused kernels for the CPU (LLVM) and NVIDIA GPUs (CUDA).

    @npcompile.jit
    def f(x, y):
        return np.sin(x) + np.cos(y)

`npcompile.run_cell(source, namespace)` traces a block of code (the %%npcompile magic),
`npcompile.explain(f)(*args)` tells what tracing saw, `npcompile.report()` holds the
session's graph breaks, recompiles, compiles and kernel timings.
"""
__version__ = "0.1.0"

from .api.cell import run_cell  # noqa: E402
from .api.explain import explain  # noqa: E402
from .api.jit import Jitted, jit  # noqa: E402
from .api.replay import drop_programs  # noqa: E402
from .backends.device_array import DeviceArray, to_device  # noqa: E402
from . import memo  # noqa: E402
from .errors import GraphBreakError, NpcompileError  # noqa: E402
from .exec.engine import ENGINE  # noqa: E402
from .records import SESSION  # noqa: E402
from .report import export_chrome_trace, mime_bundle  # noqa: E402
from .report import clear as _clear_profiler  # noqa: E402


def reset():
    """Forget compiled graphs and the session's records."""
    ENGINE.reset()
    drop_programs()
    memo.clear_all()
    SESSION.settle()  # kernels still in flight are recorded now, so forgotten with the rest
    _clear_profiler()


def report():
    """The session's records as a dict: graph_breaks, recompiles, compiles, kernels, ..."""
    return SESSION.as_dict()


def widget(since_trace=None, live=True):
    """The session's report as a live, interactive notebook widget (JupyterLab 4,
    Notebook 7, VS Code): graph breaks, recompiles, kernels and their code, timings.
    since_trace: the traces from that index on (SESSION.total("traces") before a cell);
    live: it updates as later calls and cells run."""
    from .report_widget import widget as make
    return make(since_trace, live)


def cuda_available():
    """(True, '') when device="cuda" runs on a GPU here, else (False, the reason)."""
    from .backends.cuda_runtime import available
    return available()


def synchronize():
    """Wait until the GPU's queued kernels have finished (a device="cuda" call returns
    while they run); nothing to wait for without a GPU."""
    if cuda_available()[0]:
        from .backends.device_array import synchronize as wait
        wait()


__all__ = ["jit", "Jitted", "widget", "DeviceArray", "to_device", "cuda_available", "synchronize", "run_cell", "explain", "reset", "report", "export_chrome_trace",
           "mime_bundle", "GraphBreakError", "NpcompileError", "__version__"]


def load_ipython_extension(ip):
    """`%load_ext npcompile` in plain IPython registers the same magics as the kernel."""
    from .magics import load_ipython_extension as load
    load(ip)
