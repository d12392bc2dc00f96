"""Memory stays bounded over a long session: calls on changing shapes, and functions
that come and go (a notebook redefining its cells' functions all day)."""
import gc
import os
import textwrap
import weakref

import numpy as np
import pytest

import npcompile
from npcompile import memo


def rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2 ** 20


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="needs /proc")
def test_calls_on_changing_shapes_grow_rss_little():
    @npcompile.jit
    def f(a, s):
        return (np.sin(a) * s + 1).sum(axis=0)

    for i in range(300):                         # warm-up: the kernels and the pools
        f(np.ones((i % 50 + 1, 7)), 2.0)
    before = rss_mb()
    for i in range(3000):
        f(np.ones((i % 300 + 1, 3 + i % 7)), 2.0)
    grown = rss_mb() - before
    assert npcompile.report()["compiles"], "nothing was compiled"
    assert not npcompile.report()["fallbacks"]
    assert grown < 40, f"RSS grew {grown:.1f} MB over 3,000 calls"


def _defined(k, with_loop):
    """A function made from source, as a notebook cell makes one."""
    src = textwrap.dedent(f"""
        def f(a):
            b = np.sin(a) * {k}.5
            {'for _ in range(4):' if with_loop else 'if True:'}
                b = b * 0.5 + a
            return (b + {k}).sum()
        """)
    ns = {"np": np}
    exec(compile(src, f"<cell {k}>", "exec"), ns)
    return ns["f"]


@pytest.mark.parametrize("with_loop", [False, True])
def test_a_dead_function_leaves_nothing_behind(with_loop):
    """Its code object is freed with it: before, npcompile's tables of code objects (the
    C++ user-site cache, the purity scan, the tracer's own) kept every one alive, with
    its constants and names, and reset() did not give them back."""
    codes = []
    for k in range(5):
        fn = _defined(k, with_loop)
        a = np.arange(8.0)
        assert np.allclose(npcompile.jit(fn)(a), fn(a))
        codes.append(weakref.ref(fn.__code__))
        del fn
    assert npcompile.report()["compiles"]
    gc.collect()
    alive = [c for c in codes if c() is not None]
    assert not alive, f"{len(alive)} of 5 dead functions' code objects are still held"


def test_memo_tables_are_bounded_and_reset_empties_them():
    table = memo.Memo(cap=3)
    for k in range(10):
        table[k] = k
    assert 0 < len(table) <= 3 and table[9] == 9
    npcompile.jit(lambda a: np.cos(a) * 3.5)(np.ones(4))
    assert any(len(t) for t in memo._TABLES)
    npcompile.reset()
    assert all(len(t) == 0 for t in memo._TABLES)


def test_a_code_memo_entry_leaves_with_its_code():
    table = memo.CodeMemo()
    ns = {}
    exec("def g():\n    return 1\n", ns)
    code = ns["g"].__code__
    table.put(code, "seen")
    assert table.get(id(code)) == "seen"
    del ns, code
    gc.collect()
    assert len(table) == 0


def test_machine_code_of_dead_functions_and_of_reset_is_unloaded():
    """A compiled module is unloaded once no program calls it: when the functions that
    compiled it are freed, and at reset(). Before, the JIT kept about 75 KB per distinct
    kernel for the life of the process."""
    from npcompile.backends.cpu import _cpu
    from test_trace_loops import COMPILED, DEVICE
    if _cpu is None or not COMPILED or DEVICE == "cuda":
        pytest.skip("no CPU kernels here (built without the CPU backend, the reference "
                    "path, or device='cuda')")
    npcompile.reset()
    gc.collect()
    base = _cpu.loaded_modules()
    fns = [_defined(100 + k, False) for k in range(4)]
    kept = npcompile.jit(fns[0])
    for k, fn in enumerate(fns):
        a = np.arange(8.0) + k
        got = npcompile.jit(fn, choose=False)(a) if k else kept(a)
        assert np.allclose(got, fn(a))
    assert not npcompile.report()["fallbacks"]
    assert _cpu.loaded_modules() > base, "nothing was compiled"
    del fns, fn
    gc.collect()
    # only the function still held keeps its code (one module, or its units)
    held = _cpu.loaded_modules() - base
    assert 0 < held <= 2
    a = np.arange(5.0)
    assert np.allclose(kept(a), kept.original(a))       # still runs from its code
    npcompile.reset()
    gc.collect()
    assert _cpu.loaded_modules() == base
    assert np.allclose(kept(a), kept.original(a))       # compiled again after reset
    assert npcompile.report()["compiles"] and not npcompile.report()["fallbacks"]


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="needs /proc")
def test_memory_reset_frees_is_used_again():
    """reset() gives back what 400 distinct functions held (compiled code, records,
    caches), even while the functions live on: 400 more after it grow the process by
    much less than the first 400 did (without the reset, as much).
    (Measured: 1,000 functions add about 28 MB, and each round of 1,000 after a reset
    adds nothing; the allocator keeps the pages for the next round rather than handing
    them to the OS, so the test is the second round's growth, not RSS falling.)"""
    x = np.arange(10.0)

    def round_of(first):
        kept = []
        for k in range(first, first + 400):
            f = npcompile.jit(_defined(k, False), choose=False)
            f(x)
            kept.append(f)
        return kept

    npcompile.reset()
    gc.collect()
    start = rss_mb()
    kept = round_of(10_000)
    first = rss_mb() - start
    assert npcompile.report()["compiles"] and not npcompile.report()["fallbacks"]
    npcompile.reset()
    gc.collect()
    again = rss_mb()
    more = round_of(20_000)
    second = rss_mb() - again
    assert len(npcompile.report()["compiles"]) >= 400 and len(kept) == len(more)
    assert second < max(3.0, first / 2), \
        f"the first 400 functions grew RSS {first:.1f} MB, the 400 after reset() {second:.1f} MB"
