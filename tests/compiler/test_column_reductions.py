"""Reductions over every axis but the last, computed in blocks of columns (codegen/
cpp_columns.py): the rows stream through in memory order as NumPy adds them, so each
column's sum has NumPy's bits; the kernel really took the block schedule."""
import os

import numpy as np
import pytest

import npcompile
from npcompile.backends import cpu
from conftest import DEVICE, DTYPES, check, make

COMPILED = cpu.AVAILABLE and os.environ.get("NPC_BACKEND") != "reference" and DEVICE == "cpu"

CASES = {
    "sum": lambda x: x.sum(axis=0),
    "mean": lambda x: np.mean(x * 2, axis=0),
    "fused operand": lambda x: (np.sqrt(np.abs(x)) + 1).sum(axis=0),
    "count": lambda x: (x > 0).sum(axis=0),
    "fraction": lambda x: (x > 0).mean(axis=0),
    "max": lambda x: np.max(x, axis=0),
    "min": lambda x: np.min(x - 1, axis=0),
    "prod": lambda x: np.prod(x * 0 + 1.001, axis=0),
    "any": lambda x: np.any(x > 1.5, axis=0),
    "all": lambda x: np.all(x > -3, axis=0),
    "standardized": lambda x: (x - x.mean(axis=0)) / (x.std(axis=0) + 1),
}


@pytest.mark.parametrize("dtype", [d for d in DTYPES if np.dtype(d).kind in "iuf"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_numpy(name, dtype):
    check(CASES[name], make((300, 70), dtype))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sums_have_numpys_bits(dtype):
    x = np.random.default_rng(4).standard_normal((5000, 130)).astype(dtype)
    for fn in (lambda x: x.sum(axis=0), lambda x: (x * 3).sum(axis=(0, 1)),
               lambda x: x.reshape(50, 100, 130).sum(axis=(0, 1))):
        got = npcompile.jit(fn, choose=False)(x)
        want = fn(x)
        assert got.dtype == want.dtype and np.array_equal(got, want)


@pytest.mark.skipif(not COMPILED, reason="compiled CPU path not in use")
@pytest.mark.parametrize("name", ["sum", "mean", "count", "max", "fused operand"])
def test_the_kernel_takes_column_blocks(name):
    npcompile.reset()
    npcompile.jit(CASES[name], choose=False)(make((300, 70), np.float64))
    rep = npcompile.report()
    assert rep["fallbacks"] == []
    src = rep["kernel_sources"][-1]["source"]
    assert "i0b" in src, src


@pytest.mark.skipif(not COMPILED, reason="compiled CPU path not in use")
def test_a_transposed_operand_keeps_numpys_pairwise_rows():
    """x.T summed over its first axis: NumPy walks the contiguous axis pairwise, so the
    kernel must not take columns."""
    x = np.random.default_rng(5).standard_normal((70, 300))
    got = npcompile.jit(lambda x: x.T.sum(axis=0), choose=False)(x)
    assert np.array_equal(got, x.T.sum(axis=0))
    assert "i0b" not in npcompile.report()["kernel_sources"][-1]["source"]
