"""Matrix products of float32 and float64 device arrays through cuBLAS.

A matmul in a graph on the GPU was a NumPy step: both operands went to the host, NumPy's
BLAS ran there, and the product came back (a gemm of 4096 ran at a hundredth of CuPy's
speed). cuBLAS is opened at run time, as the driver is, from wherever this machine has
it: the toolkit, or NVIDIA's wheels beside CuPy and PyTorch. Where it is missing, or for
dtypes and layouts it does not take (integers, complex, a view strided in both axes),
the product stays NumPy's on the host, as before.

NumPy's arrays are row-major; cuBLAS's are column-major. A row-major C = A @ B is the
column-major C^T = B^T A^T, and a row-major matrix with row stride ld is its transpose
in column-major with the same ld: so the product is one gemm with the operands swapped,
each transposed only where its view is column-major (a.T of a C array). Its values are
cuBLAS's rounding, as CuPy's are, not NumPy's BLAS's: a matrix product's summation
order is the library's in NumPy too (OpenBLAS, MKL and their thread counts differ)."""
import glob
import importlib.util
import os

import numpy as np

from . import cuda_runtime as rt
from .device_array import DeviceArray

_DTYPES = {np.dtype(np.float32): "f", np.dtype(np.float64): "d"}
_OPENED = [None, None]   # the native module asked, its (ok, why)


def candidates():
    """Paths where cuBLAS may be: NPC_CUBLAS, the toolkit, NVIDIA's wheels."""
    found = [os.environ["NPC_CUBLAS"]] if os.environ.get("NPC_CUBLAS") else []
    for root in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if root:
            found += sorted(glob.glob(os.path.join(root, "lib64", "libcublas.so.*")), reverse=True)
    for pkg in ("nvidia.cublas", "nvidia.cu13", "nvidia.cu12"):
        try:
            spec = importlib.util.find_spec(pkg)
        except (ImportError, ValueError):
            spec = None
        for d in (spec.submodule_search_locations or []) if spec else []:
            found += sorted(glob.glob(os.path.join(d, "lib", "libcublas.so.*")), reverse=True)
    found += ["libcublas.so.13", "libcublas.so.12", "libcublas.so.11", "libcublas.so"]
    return [p for p in found if "Lt" not in os.path.basename(p)]


def available():
    """(True, '') once cuBLAS is open on npcompile's stream, else (False, why). Asked
    once per native module (tests put a fake one in its place)."""
    if _OPENED[0] is not rt._cuda or _OPENED[1] is None:
        why = "no GPU"
        if rt.available()[0]:
            why = "no cuBLAS found (NPC_CUBLAS names one)"
            for path in candidates():
                if os.path.isabs(path) and not os.path.exists(path):
                    continue
                why = rt.native().cublas_open(path)
                if not why:
                    break
        _OPENED[:] = [rt._cuda, (why == "", why)]
    return _OPENED[1]


def _as_matrix(shape, strides, itemsize):
    """A 2-d view as cuBLAS reads it: (transposed, ld) where its elements sit at
    i * s0 + j * s1 with one of the strides 1 (a size-1 axis takes either), or None."""
    (r, c), (s0, s1) = shape, (strides[0] // itemsize, strides[1] // itemsize)
    if c == 1:
        s1 = 1
    if r == 1:
        s0 = max(c, 1) if s1 == 1 else 1
    if s1 == 1 and s0 >= max(c, 1):
        return False, s0    # row-major: column-major B^T as stored
    if s0 == 1 and s1 >= max(r, 1):
        return True, s1     # column-major: needs op T
    return None


def _operand(a, vector_as):
    """(shape (batch, rows, cols), element strides, batch stride) of a matmul operand,
    a vector as a row (`vector_as` 'row') or a column; None where cuBLAS cannot read it."""
    if any(s % a.itemsize for s in a.strides):
        return None
    if a.ndim == 1:
        n, s = a.shape[0], a.strides[0]
        shape, strides = ((1, n), (n * a.itemsize, s)) if vector_as == "row" else \
            ((n, 1), (s, a.itemsize))
        return shape, strides, 0, 1
    if a.ndim == 2:
        return a.shape, a.strides, 0, 1
    if a.ndim == 3:
        return a.shape[1:], a.strides[1:], a.strides[0] // a.itemsize, a.shape[0]
    return None


def matmul(a, b):
    """a @ b on the device through cuBLAS, or None (the caller's NumPy step)."""
    if type(a) is not DeviceArray or type(b) is not DeviceArray or a.dtype != b.dtype or \
            a.dtype not in _DTYPES or a.ndim == 0 or b.ndim == 0 or not available()[0]:
        return None
    pa, pb = _operand(a, "row"), _operand(b, "col")
    if pa is None or pb is None:
        return None
    (m, k), (k2, n) = pa[0], pb[0]
    batch = max(pa[3], pb[3])
    if k != k2 or (pa[3] != pb[3] and min(pa[3], pb[3]) != 1) or 0 in (m, n, k, batch):
        return None     # NumPy's error, or an empty product: NumPy's step says it
    ma, mb = _as_matrix(pa[0], pa[1], a.itemsize), _as_matrix(pb[0], pb[1], b.itemsize)
    if ma is None or mb is None:
        return None
    shape = (batch, m, n) if max(a.ndim, b.ndim) == 3 else (m, n)
    out = DeviceArray.empty(shape, a.dtype)
    sa = pa[2] if pa[3] == batch else 0
    sb = pb[2] if pb[3] == batch else 0
    # C^T (n x m, ld n) = op(B^T) op(A^T): B first
    rt.native().gemm(_DTYPES[a.dtype], mb[0], ma[0], n, m, k, b.pointer, mb[1], sb,
                     a.pointer, ma[1], sa, out.pointer, n, m * n, batch)
    if a.ndim == 1 and b.ndim == 1:
        return out.reshape(())
    if a.ndim == 1:
        return out.reshape(shape[:-2] + (n,))
    if b.ndim == 1:
        return out.reshape(shape[:-2] + (m,))
    return out
