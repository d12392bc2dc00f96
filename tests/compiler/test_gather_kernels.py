"""Integer-array reads inside compiled CPU kernels (fusion/expr.py Lowering._gather,
codegen/cpp.py Emitter._gather_index): the gather fuses with its index arithmetic and
its readers, no NumPy step is left for it, and values, dtypes, shapes, negative
indices and NumPy's IndexError are NumPy's."""
import os

import numpy as np
import pytest

import npcompile
from npcompile.backends import cpu
from conftest import DEVICE, DTYPES, check, make

COMPILED = cpu.AVAILABLE and os.environ.get("NPC_BACKEND") != "reference" and DEVICE == "cpu"

rng = np.random.default_rng(5)
A = rng.random((6, 7, 8))
I = rng.integers(-6, 6, (20, 30))           # negative indices count from the end
J = rng.integers(0, 7, (20, 30))
K = rng.integers(0, 8, (30,))
L = rng.integers(0, 8, (20, 1)).astype(np.int32)
U8 = rng.integers(0, 6, (20, 30)).astype(np.uint8)

CASES = {
    "rows": lambda a, i, j, k, l, u: a[i] * 2,
    "two arrays": lambda a, i, j, k, l, u: a[i, j] + 1,
    "slice then array": lambda a, i, j, k, l, u: a[:, j] * 3,
    "arrays apart (block first)": lambda a, i, j, k, l, u: a[i, :, k] * a[i, :, k],
    "trailing array": lambda a, i, j, k, l, u: a[:, :, k] + 0.5,
    "int and array apart": lambda a, i, j, k, l, u: a[1, :, k] - 1,
    "array and int": lambda a, i, j, k, l, u: a[i, 2] * 3,
    "ellipsis, int32 index broadcast": lambda a, i, j, k, l, u: a[..., l] * 2,
    "uint8 index": lambda a, i, j, k, l, u: a[u, j] - a[u, 0],
    "computed array": lambda a, i, j, k, l, u: (a * 2)[i, j] + 1,
    "reduced array": lambda a, i, j, k, l, u: a.sum(axis=0)[j, k] + 1,
    "computed index": lambda a, i, j, k, l, u: a[(j * 3) % 6, j] * 2,
    "np.take of the raveled array": lambda a, i, j, k, l, u: np.take(a, j * 7) * 2,
    "np.take along an axis": lambda a, i, j, k, l, u: np.take(a, k, axis=2) + 1,
    "the take method": lambda a, i, j, k, l, u: a.take(i, axis=0) - 1,
    "lattice interpolation": lambda a, i, j, k, l, u: (
        a[0][j, k] * 0.25 + a[0][(j + 1) % 7, (k + 1) % 8] * 0.75),
}
ARGS = (A, I, J, K, L, U8)


def _gathers_in_kernels():
    """The last graph's gathers all ran inside kernels, and nothing fell back."""
    rep = npcompile.report()
    assert rep["fallbacks"] == [], rep["fallbacks"]
    graph = rep["fusion_graphs"][-1]
    gathers = [n for n in graph["nodes"] if n["op"] == "gather"]
    assert gathers, graph
    assert all(n["kernel"] >= 0 for n in gathers), graph["decisions"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_numpy(name):
    check(CASES[name], *ARGS)


@pytest.mark.skipif(not COMPILED, reason="compiled CPU path not in use")
@pytest.mark.parametrize("name", sorted(CASES))
def test_gather_runs_in_a_kernel(name):
    npcompile.reset()
    npcompile.jit(CASES[name], choose=False)(*ARGS)
    _gathers_in_kernels()


@pytest.mark.parametrize("dtype", DTYPES)
def test_every_dtype(dtype):
    check(lambda a, i: a[i] + a[i[::-1]], make((30,), dtype), K)


@pytest.mark.parametrize("index", [[1, 40], [-34, 0], [33]])
def test_out_of_range_raises_numpys_index_error(index):
    g = rng.random((33, 4))
    check(lambda g, x: g[x] * 2, g, np.array(index))
    with pytest.raises(IndexError):
        npcompile.jit(lambda g, x: g[x] * 2, choose=False)(g, np.array(index))


def test_out_of_range_leaves_arguments_as_numpy_does():
    """The kernel flags the bad index; the graph reruns in NumPy from the leaves, so an
    in-place update before the gather is not applied twice."""
    def f(y, g, x):
        y += 1
        return g[x] + y[0]
    y0, g = np.zeros(3), rng.random(5)
    y1 = y0.copy()
    with pytest.raises(IndexError):
        f(y0, g, np.array([0, 9]))
    with pytest.raises(IndexError):
        npcompile.jit(f, choose=False)(y1, g, np.array([0, 9]))
    assert np.array_equal(y0, y1)


@pytest.mark.skipif(not COMPILED, reason="compiled CPU path not in use")
def test_large_index_arrays_trace_without_materializing():
    """A (512, 512) index into a small lattice: the region's shape comes from small
    stand-ins (trace/view_rules._region_shape), and the gathers fuse."""
    g = rng.random((65, 65))
    y = rng.integers(0, 64, (512, 512))
    x = rng.integers(0, 64, (512, 512))

    def lattice(g, y, x):
        return g[y, x] * 0.5 + g[y + 1, x + 1] * 0.5
    check(lattice, g, y, x)
    npcompile.reset()
    npcompile.jit(lattice, choose=False)(g, y, x)
    _gathers_in_kernels()


@pytest.mark.parametrize("mode", ["raise", "clip", "wrap"])
def test_take_modes_and_out_of_range(mode):
    g = rng.random((5, 4))
    check(lambda g, x: np.take(g, x, axis=0, mode=mode) * 2, g, np.array([0, 7, -1]))
    check(lambda g, x: np.take(g, x, mode=mode) + 1, g, np.array([[3, 19], [-20, 2]]))
