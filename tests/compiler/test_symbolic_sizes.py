"""Kernels that take their sizes at run time (codegen/cpp.py symbolic kernels, chosen by
backends/cpu_symbolic.py for loop bodies whose slices move) must compute what the
constant-size kernels compute. Here every kernel is made symbolic and checked against
NumPy over views, broadcasting, reductions and arg-reductions."""
import os

import numpy as np
import pytest

import npcompile
from npcompile.backends import cpu, cpu_symbolic
from conftest import check, make

pytestmark = pytest.mark.skipif(not cpu.AVAILABLE or os.environ.get("NPC_BACKEND") == "reference",
                                reason="needs the CPU backend (the reference path compiles nothing)")


@pytest.fixture(autouse=True)
def every_kernel_symbolic(monkeypatch):
    every = lambda steps: {i for i, s in enumerate(steps) if s[0] == "kernel"}  # noqa: E731
    monkeypatch.setattr(cpu, "sized_alike", every)
    yield
    srcs = npcompile.report()["kernel_sources"]
    assert srcs and all("given at run time" in k["source"] for k in srcs)


PROGRAMS = {
    "reversed_view": lambda a: a[:, None, ::-1] * 2.0,
    "transposed": lambda a: a.T + a[:, 0],
    "column_broadcast": lambda a: a - a.mean(axis=1, keepdims=True),
    "sum_axis0": lambda a: (a * a).sum(axis=0),
    "std_rows": lambda a: a.std(axis=1),
    "argmin_rows": lambda a: np.argmin(np.abs(a - 1.0), axis=1),
    "full_max": lambda a: np.max(np.sqrt(np.abs(a))),
    "strided": lambda a: a[::2, 1::3] * a[1::2, ::3],
    "outer": lambda a: np.outer(a[0], a[:, 1]) + 1.0,
    # views of a computed array fused into the kernel: offsets and multipliers from P
    "computed_view": lambda a: (a * 2.0)[1:, 1::2] + (a - 1.0)[:-1, 2::2],
    "computed_row": lambda a: np.exp(a * 0.1)[2] * a[3],
    # a gather with a fixed index beside its index array (psi[t + 1, path[t + 1]])
    "gather_fixed": lambda a: (a + 1.0)[2, np.array([1, 4, 0, 8])] * 3,
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_symbolic_kernels_match_numpy(name, dtype):
    check(PROGRAMS[name], make((6, 9), dtype, seed=11))
    assert npcompile.report()["fallbacks"] == []
