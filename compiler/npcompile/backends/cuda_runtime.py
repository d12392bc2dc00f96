"""The CUDA half of npcompile._native, and whether a GPU can be used here.

The native module opens the driver and NVRTC when first needed: importing npcompile on
a machine without them works, and `available()` says in words why CUDA is off."""
try:
    from .._native import cuda as _cuda
    _IMPORT_ERROR = ""
except Exception as e:  # built without the CUDA toolkit, or no native module at all
    _cuda = None
    _IMPORT_ERROR = f"npcompile was built without its CUDA backend ({e})"

DEFAULT_ARCH = "compute_90"   # the H200: what lower() compiles for when there is no GPU
NVRTC_OPTIONS = ["--fmad=false", "--std=c++17"]  # no FMA contraction: NumPy rounds each op


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


def available():
    """(True, '') when kernels can run on a GPU here, else (False, why)."""
    if _cuda is None:
        return False, _IMPORT_ERROR
    ok, why = _cuda.available()
    return bool(ok), why


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
