"""glibc's allocator is tuned when npcompile loads (compiler/runtime/MallocTuning.cpp):
arrays of a few hundred KB made and freed per loop step no longer fault their pages
in again on every step; NPC_MALLOC_TUNING=0 keeps glibc's defaults."""
import os
import platform
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc only")

_PROBE = ("import resource, numpy as np, npcompile._native as n\n"
          "x = np.ones(50_000)\n"
          "for _ in range(20):\n"
          "    a = np.concatenate([x[1:], x[:1]]); b = np.concatenate([x[-1:], x[:-1]]); del a, b\n"
          "r0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt\n"
          "for _ in range(200):\n"
          "    a = np.concatenate([x[1:], x[:1]]); b = np.concatenate([x[-1:], x[:-1]]); del a, b\n"
          "print(n.malloc_tuned, resource.getrusage(resource.RUSAGE_SELF).ru_minflt - r0)\n")


def _probe(env):
    out = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True,
                         env={**os.environ, **env}, timeout=120)
    assert out.returncode == 0, out.stderr
    tuned, faults = out.stdout.split()
    return tuned == "True", int(faults)


def test_tuned_by_default_and_steps_stop_faulting():
    tuned, faults = _probe({})
    assert tuned and faults < 2000, faults      # 400 KB arrays, 400 of them: ~40,000 pages


def test_opt_out():
    tuned, _ = _probe({"NPC_MALLOC_TUNING": "0"})
    assert not tuned
