"""The CUDA half of npcompile._native, and whether a GPU can be used here.

The native module opens the driver and NVRTC when first needed: importing npcompile on
a machine without them works, and `available()` says in words why CUDA is off."""
import collections
import os

try:
    from .._native import cuda as _cuda
    _IMPORT_ERROR = ""
except Exception as e:  # built without the CUDA toolkit, or no native module at all
    _cuda = None
    _IMPORT_ERROR = f"npcompile was built without its CUDA backend ({e})"

DEFAULT_ARCH = "compute_90"   # the H200: what lower() compiles for when there is no GPU
NVRTC_OPTIONS = ["--fmad=false", "--std=c++17"]  # no FMA contraction: NumPy rounds each op
# Runs of kernels are launched as CUDA graphs from a program's second run (backends/cuda.py)
GRAPHS = os.environ.get("NPC_CUDA_GRAPHS", "1") != "0"


class CudaUnavailable(RuntimeError):
    """No usable GPU: the message says why (no driver, no device, no CUDA build)."""


def native():
    """npcompile._native.cuda, or CudaUnavailable."""
    if _cuda is None:
        raise CudaUnavailable(_IMPORT_ERROR)
    return _cuda


def compiler_available():
    """Can CUDA C be compiled to PTX here (NVRTC present)? Needs no GPU."""
    if _cuda is None:
        return False, _IMPORT_ERROR
    try:
        _cuda.nvrtc_version()
        return True, ""
    except Exception as e:
        return False, str(e)


_AVAILABLE = [None, None]   # the module asked, its answer


def available():
    """(True, '') when kernels can run on a GPU here, else (False, why). Asked once per
    module: the driver opens or it does not, and the path choice asks at every call that
    waits (tests put a fake module in _cuda's place)."""
    if _AVAILABLE[0] is not _cuda or _AVAILABLE[1] is None:
        if _cuda is None:
            got = (False, _IMPORT_ERROR)
        else:
            ok, why = _cuda.available()
            got = (bool(ok), why)
        _AVAILABLE[:] = [_cuda, got]
    return _AVAILABLE[1]


_INFO = None


def device_info():
    """Name, compute capability, arch, multiprocessors of device 0 (cached)."""
    global _INFO
    if _INFO is None:
        _INFO = native().device_info()
    return _INFO


def arch():
    """The architecture kernels are compiled for: the GPU's, or the H200's without one."""
    ok, _ = available()
    return device_info()["arch"] if ok else DEFAULT_ARCH


# Timed launches whose CUDA-event times are not read yet, oldest first: (kernel name,
# graph id, function). A call returns while its kernels run; their times are read when
# they have finished (at the next call) or when the records are read (SESSION.settle).
_launched = collections.deque()


def launched(names, graph_id, function):
    _launched.extend((name, graph_id, function) for name in names)


def record_timings(session, wait=False):
    """Record the times of finished launches (all of them when wait: a sync point)."""
    if not _launched or _cuda is None:
        return
    times = _cuda.take_timings() if wait else _cuda.take_ready_timings()
    for ms in times:
        if not _launched:
            break
        name, graph_id, function = _launched.popleft()
        session.add("kernels", {"name": name, "graph_id": graph_id, "target": "cuda",
                                "function": function, "wall_ms": ms})


def _settle(session):
    if _launched:
        record_timings(session, wait=True)


def _register():
    from ..records import SESSION
    if _settle not in SESSION.before_read:
        SESSION.before_read.append(_settle)


_register()
