"""A use of one module of machine code from the CPU JIT (native.compile's result).

Whatever calls into the module holds its JitCode: a cpu.Program (for its kernels, also
from the C++ StepProgram it owns), a native loop nest. When the last holder is freed the
use goes back (CpuJit::release) and the JIT unloads the module. Before, the JIT kept
every module for the life of the process (about 75 KB each), after the functions that
compiled them and reset() were gone."""


class JitCode:
    __slots__ = ("key", "addresses", "_release", "__weakref__")

    def __init__(self, native, result):
        self.key = result["cache_key"]
        self.addresses = {}     # symbol -> (per-chunk address or None, address)
        self._release = native.release

    def __del__(self):
        try:
            self._release(self.key)
        except Exception:   # noqa: BLE001 - at interpreter exit the module may be gone
            pass
