"""The CPU backend through Python: compile generated C++, run it on the thread pool."""
import numpy as np
import pytest

from npcompile._native import cpu

KERNEL = r"""
extern "C" void mul_add(char** bufs, const long* params, long begin, long end) {
  const double* a = (const double*)bufs[0];
  const double* b = (const double*)bufs[1];
  double* out = (double*)bufs[2];
  (void)params;
  for (long i = begin; i < end; ++i) out[i] = a[i] * b[i] + 1.0;
}
"""


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("NPC_CACHE_DIR", str(tmp_path))


def test_mul_add_matches_numpy_on_several_threads():
    old = cpu.num_threads()
    cpu.set_num_threads(4)
    try:
        assert cpu.num_threads() == 4
        res = cpu.compile(KERNEL, ["mul_add"])
        assert set(res) >= {"addresses", "ms_frontend", "ms_optimize", "ms_codegen", "ms_total",
                            "cache_hit", "cache_key"}
        (addr,) = res["addresses"]
        assert isinstance(addr, int) and addr != 0
        rng = np.random.default_rng(0)
        n = 1_000_003
        a = rng.standard_normal(n)
        b = rng.standard_normal(n)
        out = np.empty(n)
        cpu.run_kernel(addr, [a, b, out], [], n, 4096)
        np.testing.assert_array_equal(out, a * b + 1)  # no FMA contraction: bit-exact
        # Small n takes the serial path; same answer.
        out2 = np.zeros(10)
        cpu.run_kernel(addr, [a[:10], b[:10], out2], [], 10, 4096)
        np.testing.assert_array_equal(out2, a[:10] * b[:10] + 1)
    finally:
        cpu.set_num_threads(old)


def test_cache_hit_and_keys():
    first = cpu.compile(KERNEL + "// cache test\n", ["mul_add"])
    second = cpu.compile(KERNEL + "// cache test\n", ["mul_add"])
    assert second["cache_hit"] and second["cache_key"] == first["cache_key"]
    assert second["addresses"] == first["addresses"]
    cpu.clear_memory_cache()
    third = cpu.compile(KERNEL + "// cache test\n", ["mul_add"])
    assert third["cache_hit"] and third["from_disk"]


def test_compile_error_carries_diagnostics():
    with pytest.raises(cpu.CompileError) as info:
        cpu.compile('extern "C" void f( { }', ["f"])
    assert "error:" in str(info.value)
    assert "npc_kernel.cpp" in info.value.diagnostics
    assert issubclass(cpu.CompileError, RuntimeError)


def test_host_cpu():
    assert "+sse2" in cpu.host_cpu()
