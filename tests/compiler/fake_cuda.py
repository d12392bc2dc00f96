"""A stand-in for npcompile._native.cuda on machines without a GPU: device buffers are
host bytearrays at made-up addresses, copies are real, launches are only recorded. It
lets CI test DeviceArray's views, copies and transfers, and lets a profiler see the
Python side of a CUDA call; kernels themselves need the GPU machine."""
import itertools
import weakref

import numpy as np

_addresses = itertools.count(1 << 40, 1 << 32)


_live = weakref.WeakValueDictionary()   # address -> Buffer, while someone holds it


class Buffer:
    def __init__(self, nbytes):
        self.nbytes = int(nbytes)
        self.ptr = next(_addresses)
        self.data = bytearray(max(self.nbytes, 1))
        _live[self.ptr] = self


def _check_live(pointers):
    """A launch reading memory nobody holds: a real pool would have handed it on."""
    for p in pointers:
        base = p - (p - (1 << 40)) % (1 << 32)
        b = _live.get(base)
        assert b is not None and p - base <= b.nbytes, f"launch reads freed device memory {p:#x}"


class NvrtcError(RuntimeError):
    pass


class Unavailable(RuntimeError):
    pass


class FakeCuda:
    Buffer = Buffer
    NvrtcError = NvrtcError
    Unavailable = Unavailable

    def __init__(self, real=None):
        self.real = real          # the real module, for NVRTC (it needs no GPU)
        self.launches = []
        self._pending = 0

    def available(self):
        return True, ""

    def device_info(self):
        return {"name": "fake", "arch": "compute_90", "multiprocessors": 132,
                "compute_capability": (9, 0)}

    def nvrtc_version(self):
        return self.real.nvrtc_version() if self.real else 13000

    def compile_ptx(self, source, name, arch="compute_90", options=()):
        if self.real is not None:
            return self.real.compile_ptx(source, name, arch, list(options))
        return {"ptx": f".visible .entry {name}(", "log": "", "ms": 0.0}

    def upload(self, dst, offset, src):
        b = np.ascontiguousarray(src).reshape(-1).view(np.uint8)
        dst.data[offset:offset + b.size] = b.tobytes()

    def download(self, dst, src, offset):
        flat = dst.reshape(-1).view(np.uint8)
        flat[:] = np.frombuffer(bytes(src.data[offset:offset + flat.size]), np.uint8)

    def copy(self, dst, dst_offset, src, src_offset, n):
        dst.data[dst_offset:dst_offset + n] = src.data[src_offset:src_offset + n]

    def load(self, ptx, name):
        return {"function": 1, "load_ms": 0.0, "cached": False, "max_threads": 1024, "registers": 32}

    def launch(self, function, grid, block, pointers, params, timed=True):
        _check_live(pointers)
        self.launches.append((grid, block, list(pointers), list(params)))
        self._pending += 1

    def LaunchGraph(self, kernels, timed=True):
        return FakeGraph(self, kernels)

    def take_timings(self):
        n, self._pending = self._pending, 0
        return [0.001] * n

    def take_ready_timings(self):  # fake kernels finish at once
        return self.take_timings()

    def synchronize(self):
        pass


class FakeGraph:
    """A launch graph that replays its kernels as direct fake launches, counting the
    kernels whose arguments changed since the last launch (as the real one updates)."""

    def __init__(self, cuda, kernels):
        self.cuda = cuda
        self.kernels = [list(k) for k in kernels]
        self.size = len(kernels)
        self.updates = 0
        self.launches = 0

    def launch(self, pointers, params):
        for k, ptrs, prm in zip(self.kernels, pointers, params):
            if list(ptrs) != k[3] or list(prm) != k[4]:
                k[3], k[4] = list(ptrs), list(prm)
                self.updates += 1
            self.cuda.launch(k[0], k[1], k[2], k[3], k[4])
        self.launches += 1


def _at(pointer, dtype, shape, strides):
    """The fake device memory at `pointer` as an ndarray view (element strides)."""
    base = pointer - (pointer - (1 << 40)) % (1 << 32)
    buf = _live[base]
    flat = np.frombuffer(buf.data, np.uint8)
    item = np.dtype(dtype).itemsize
    return np.lib.stride_tricks.as_strided(flat[pointer - base:].view(dtype), shape,
                                           tuple(s * item for s in strides))


def fake_gemm(dtype, trans_a, trans_b, m, n, k, a, lda, stride_a, b, ldb, stride_b, c, ldc,
              stride_c, batch):
    """cuBLAS's column-major gemm over fake device memory, by NumPy: what the layout
    arithmetic of backends/cuda_blas.py hands it is checked as a real gemm reads it."""
    dt = np.float64 if dtype == "d" else np.float32
    for i in range(batch):
        # column-major (r x c, ld) is the element (x, y) at x + y * ld
        A = _at(a + i * stride_a * np.dtype(dt).itemsize, dt, (k, m) if trans_a else (m, k),
                (1, lda))
        B = _at(b + i * stride_b * np.dtype(dt).itemsize, dt, (n, k) if trans_b else (k, n),
                (1, ldb))
        C = _at(c + i * stride_c * np.dtype(dt).itemsize, dt, (m, n), (1, ldc))
        C[...] = (A.T if trans_a else A) @ (B.T if trans_b else B)


FakeCuda.gemm = staticmethod(fake_gemm)
FakeCuda.cublas_open = staticmethod(lambda path: "")
