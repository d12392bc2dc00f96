"""Integer-array indexing (trace/view_rules.gather): a NumPy step inside the graph, not a
break; NumPy's values, dtypes and IndexError; what is around it compiles."""
import os

import numpy as np
import pytest

import npcompile
from npcompile.backends import cpu
from conftest import DEVICE, DTYPES, check, make


@pytest.fixture(autouse=True)
def _bodies(bodies_compiled_once):
    """Small arrays: the body compiled once, not the loop nest that would take them."""


Z = make((40, 7), np.float64)
LABELS = np.random.default_rng(1).integers(0, 7, 40)
IDX = np.random.default_rng(2).integers(-40, 40, 25)

CASES = {
    "pick per row": (lambda z, l: np.mean(np.log(z[np.arange(len(z)), l] ** 2 + 1)), (Z, LABELS)),
    "rows": (lambda z, i: z[i] * 2, (Z, IDX)),
    "rows and a slice": (lambda z, i: z[i, 1:5].sum(axis=1), (Z, IDX)),
    "a list": (lambda z, i: z[[0, 3, -1]] + 1, (Z, IDX)),
    "a computed index": (lambda z, l: z[(l * 7) % 40] - z, (Z, LABELS)),
    "columns": (lambda z, l: z[:, l[:3]] * z[:, :1], (Z, LABELS)),
    "broadcast index arrays": (lambda z, l: z[l[:5, None] * 0 + np.arange(5)[:, None], l[:3]], (Z, LABELS)),
    "empty index": (lambda z, l: z[l[:0]] + 1, (Z, LABELS)),
    "2-d index": (lambda z, l: z[l.reshape(8, 5)].sum(axis=-1), (Z, LABELS)),
    # a traced integer as an index (an HMM's B[:, obs[t]]): a gather, no break per value
    "a traced integer": (lambda z, l: z[:, l[3]] * z[l[5] % 40].sum() + z[l[2], l[4]], (Z, LABELS)),
    "a traced negative integer": (lambda z, l: z[l[3] - 40] + z[-l[1], l[0] - 7], (Z, LABELS)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_numpy(name):
    fn, args = CASES[name]
    check(fn, *args)


@pytest.mark.parametrize("name", sorted(CASES))
def test_no_graph_break(name):
    fn, args = CASES[name]
    e = npcompile.explain(fn)(*args)
    assert e.graph_break_count == 0 and e.graph_count == 1, e


@pytest.mark.skipif(not cpu.AVAILABLE or os.environ.get("NPC_BACKEND") == "reference" or
                    DEVICE != "cpu", reason="compiled CPU path not in use")
def test_the_rest_compiles_around_the_gather():
    fn, args = CASES["pick per row"]
    npcompile.reset()
    npcompile.jit(fn)(*args)
    rep = npcompile.report()
    assert rep["fallbacks"] == [] and rep["graph_breaks"] == []
    assert any(k["target"] == "cpu" for k in rep["kernels"])


@pytest.mark.parametrize("dtype", DTYPES)
def test_every_dtype(dtype):
    check(lambda a, i: a[i] + a[i[::-1]], make((30,), dtype), IDX[IDX < 30])


@pytest.mark.parametrize("fn", [
    lambda z, l: z[l + 500] * 2,            # out of range at run time: IndexError
    lambda z, l: z[l - 500],                # negative, out of range
    lambda z, l: z[l, l, l],                # too many indices
    lambda z, l: z[l.astype(float)],        # float index: IndexError
    lambda z, l: z[l[:3], l[:4]],           # shapes that do not broadcast
    lambda z, l: z[:, l[0] + 7] * 2,        # a traced integer out of range
    lambda z, l: z[(l[0] - 500) * 0 - 41],  # a traced negative integer out of range
])
def test_errors_are_numpys(fn):
    check(fn, Z, LABELS)


def test_writes_before_an_index_error_land_as_in_numpy():
    """A gather that raises NumPy's IndexError at run time: the in-place write before it
    has landed in the caller's array, as eagerly (the graph reruns in NumPy, and the
    writes computed before the failing operation are copied in)."""
    def f(z, l):
        z *= 2
        return z[l + 500]
    z_np, z = Z.copy(), Z.copy()
    with pytest.raises(IndexError):
        f(z_np, LABELS)
    with pytest.raises(IndexError):
        npcompile.jit(f)(z, LABELS)
    np.testing.assert_array_equal(z, z_np)
    assert not np.array_equal(z, Z)


def _forward(obs, A, B):
    alpha = np.zeros((len(obs), A.shape[0]))
    alpha[0] = B[:, obs[0]]
    for t in range(1, len(obs)):
        alpha[t] = (alpha[t - 1] @ A) * B[:, obs[t]]
        alpha[t] /= alpha[t].sum()
    return alpha


@pytest.mark.skipif(not cpu.AVAILABLE or os.environ.get("NPC_BACKEND") == "reference" or
                    DEVICE != "cpu", reason="compiled CPU path not in use")
def test_an_element_used_as_an_index_in_a_loop_compiles_once():
    """An HMM's forward pass, `B[:, obs[t]]` with obs[t] an element of an int array:
    one compiled body for every t (it made a graph break and a compile per iteration)."""
    rng = np.random.default_rng(0)
    A, B = rng.random((6, 6)), rng.random((6, 4))
    obs = rng.integers(0, 4, 40)
    check(_forward, obs, A, B, ulp=4)
    npcompile.reset()
    npcompile.jit(_forward, choose=False)(obs, A, B)
    rep = npcompile.report()
    assert not rep["graph_breaks"] and not rep["fallbacks"]
    assert any("39 iterations, one compiled body" in l["summary"] for l in rep["loops"])
