"""Concatenations and views of computed arrays inside kernels: np.roll, np.pad, the
stacking functions, np.append and np.flip fuse into the kernel that reads them (a select
on the index, index arithmetic), checked against NumPy and for the kernels they make."""
import os

import numpy as np
import pytest

import npcompile
from npcompile.backends import cpu
from conftest import DEVICE, DTYPES, check, make

compiled_cpu = pytest.mark.skipif(
    not cpu.AVAILABLE or os.environ.get("NPC_BACKEND") == "reference" or DEVICE != "cpu",
    reason="compiled CPU path not in use")

A = make((23, 31), np.float64)
V = make((97,), np.float64, 1)

CASES = {
    "roll 1-d": (lambda u: np.roll(u, 1) - 2 * u + np.roll(u, -1), V),
    "roll 2 axes": (lambda a: np.roll(a, (1, -2), axis=(0, 1)) + np.roll(a, 3), A),
    "roll of computed": (lambda a: np.roll(np.roll(a * 2 + 1, 1, axis=0), -1, axis=1) - a, A),
    "roll wider than axis": (lambda u: np.roll(u, 250) * 2, V),
    "concatenate computed": (lambda a: np.concatenate([a[:, :2] * 2, a[:, 2:] - 1], axis=1) + a, A),
    "concatenate 3 pieces": (lambda u: np.concatenate([u[:3], u * 2, u[-4:]]) - 1, V),
    "concatenate negative axis": (lambda a: np.concatenate([a, a[:2]], axis=-2) * 2, A),
    "concatenate mixed dtypes": (lambda a: np.concatenate([a.astype(np.int32), a[:3] * 0.5]), A),
    "pad constant": (lambda a: np.pad(a, 2) * 2, A),
    "pad constant pairs": (lambda a: np.pad(a, ((1, 2), (3, 0)),
                                            constant_values=((5, 6), (7, 8))) + 1, A),
    "pad edge": (lambda a: np.pad(a, (2, 3), mode="edge") + 0, A),
    "pad wrap": (lambda a: np.pad(a, 3, mode="wrap") - 1, A),
    "pad reflect": (lambda a: np.pad(a, (4, 1), mode="reflect") * 3, A),
    "pad symmetric": (lambda a: np.pad(a, 2, mode="symmetric") * 3, A),
    "pad of computed, sliced": (lambda u: np.pad(u * u, 5, mode="reflect")[3:-3] * 2, V),
    "hstack": (lambda a: np.hstack([a, 2 * a, a[:, :3]]), A),
    "hstack 1-d": (lambda u: np.hstack([u, u[:4] + 1]) * 2, V),
    "vstack 1-d": (lambda u: np.vstack([u, u * 2]) + 1, V),
    "column_stack": (lambda u: np.column_stack([u, u ** 2]) + 1, V),
    "append flat": (lambda a: np.append(a, a[:5]) * 2, A),
    "append axis": (lambda a: np.append(a, a[:5], axis=0) * 2, A),
    "insert": (lambda u: np.cumsum(np.insert(u, 0, 0.0))[5:] * 2, V),
    "insert array": (lambda a: np.insert(a, -3, a[0, :4]) + 1, A),
    "insert int into float": (lambda u: np.insert(u, len(u), 7) - 1, V),
    "flip": (lambda a: np.flip(a) + a, A),
    "flip computed": (lambda a: np.flip(a * 2, axis=1) + a, A),
    "fliplr flipud": (lambda a: np.fliplr(a) - np.flipud(a), A),
    "slice of computed": (lambda a: (a * 2 + 1)[1:-1, ::2].T + 1, A),
    "triu": (lambda a: np.triu(a) * 2, A),
    "tril below": (lambda a: np.tril(a, -2) + 1, A),
    "triu above of 1-d": (lambda u: np.triu(u[:9], 3) + 1, V),
    "diag of 2-d": (lambda a: np.diag(a, -3) * 2, A),
    "diagonal": (lambda a: np.diagonal(a, 1) + a[0, :23], A),
    "diag of 1-d": (lambda u: np.diag(u[:8]) + 1, V),
    "diag of 1-d above": (lambda u: np.diag(u[:8], 2) * 3, V),
    "diag of 1-d below": (lambda u: np.diag(u[:8], -3) - 1, V),
    "diagflat": (lambda a: np.diagflat(a[:3, :2]) - 1, A),
    "stencil of computed": (lambda u: (lambda t: t[:-2] - 2 * t[1:-1] + t[2:])(np.abs(u) + 1), V),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_numpy(name):
    fn, x = CASES[name]
    check(fn, x)


# A view of a computed array (not of a concatenation) is NumPy's: the array is written
# once by its own kernel and read through strides, rather than computed again at each
# index that reads it (in unrolled loops that grew every kernel by the step before).
WRITES_FIRST = {"insert", "column_stack", "flip computed", "pad of computed, sliced", "roll of computed",
                "slice of computed", "stencil of computed", "vstack 1-d"}


@compiled_cpu
@pytest.mark.parametrize("name", sorted(CASES))
def test_concatenations_fuse_into_their_reader(name):
    """The data movement is part of the kernel that reads it: no NumPy step for it, no
    graph break, no fallback; one kernel (two where a computed array is viewed)."""
    fn, x = CASES[name]
    npcompile.reset()
    npcompile.jit(fn)(x.copy())
    rep = npcompile.report()
    assert rep["graph_breaks"] == [] and rep["fallbacks"] == []
    programs = [e.compiled for e in npcompile.ENGINE.cache.entries.values()]
    assert len(programs) == 1 and programs[0] is not None
    kernels = [s for s in programs[0].steps if s[0] == "kernel"]
    steps = [programs[0].nodes[s[1]].label for s in programs[0].steps if s[0] == "numpy"]
    assert len(kernels) == (2 if name in WRITES_FIRST else 1), programs[0].plan.decisions
    assert "concatenate" not in steps
    assert {k["target"] for k in rep["kernels"]} == {"cpu"}


@pytest.mark.parametrize("dtype", DTYPES)
def test_triangles_and_diagonals_every_dtype(dtype):
    a = make((6, 7), dtype)
    check(lambda m: (np.triu(m, 1), np.tril(m), np.diag(m), np.diag(np.diag(m)), np.diagflat(m[0])), a)


def test_the_diagonal_view_is_read_only_as_in_numpy():
    check(lambda a: np.diagonal(a).__setitem__(0, 1.0), A)   # ValueError: read-only
    check(lambda a: np.triu(a.sum()), A)                     # 0-d: NumPy's error


@pytest.mark.parametrize("dtype", DTYPES)
def test_roll_stencil_every_dtype(dtype):
    check(lambda a: np.roll(a, 1, axis=1) + np.roll(a, -1, axis=0) - a, make((9, 13), dtype))


def roll_by_peak(x):
    """np.roll by a shift the trace computes (np.argmax): a gather, not a graph break."""
    s = np.argmax(x)
    return np.roll(x, -s), np.roll(x.reshape(3, -1), s, axis=1), np.roll(x, s - 100, axis=-1)


@pytest.mark.parametrize("dtype", [np.float64, np.int32])
def test_roll_by_a_traced_shift(dtype):
    check(roll_by_peak, make((12,), dtype))
    check(roll_by_peak, make((0,), dtype)[:0].repeat(3))        # empty: NumPy's error
    npcompile.reset()
    npcompile.explain(roll_by_peak)(make((12,), dtype))
    assert npcompile.report()["graph_breaks"] == []


@pytest.mark.parametrize("kwargs", [
    {"mode": "median"}, {"mode": "constant", "reflect_type": "even"},
    {"mode": "reflect", "reflect_type": "odd"}])
def test_pad_modes_not_compiled_run_in_numpy(kwargs):
    check(lambda a: np.pad(a, 2, **kwargs) + 1, A)


@pytest.mark.parametrize("fn", [
    lambda a: np.pad(a, -1),                          # negative width: ValueError
    lambda a: np.pad(a[:0], 2, mode="edge"),          # empty axis: ValueError
    lambda a: np.pad(a, ((1, 2, 3),)),                # bad shape: ValueError
    lambda a: np.concatenate([a, a[0]]),              # ndim mismatch: ValueError
    lambda a: np.flip(a, axis=5),                     # AxisError
    lambda a: np.hstack(a[0]),                        # 1-d pieces of a 1-d array: fine
    lambda a: np.insert(a, 2000, 1.0),                # IndexError
    lambda a: np.insert(a[0], [1, 3], 1.0),           # several indexes: NumPy's
    lambda a: np.insert(a, 1, 5.0, axis=1),           # an axis of a 2-d array: NumPy's
])
def test_numpy_errors_are_numpys(fn):
    check(fn, A)


def test_wide_pads_and_wraps_fall_back_to_numpy_visibly():
    """Wider than the axis, NumPy repeats the pattern: traced as a NumPy call (a break)."""
    fn = lambda u: np.pad(u, 300, mode="wrap") + 1  # noqa: E731
    check(fn, V)
    npcompile.reset()
    npcompile.jit(fn)(V.copy())
    assert any("np.pad" in b["reason"] for b in npcompile.report()["graph_breaks"])


def test_game_of_life_generation_is_one_kernel_per_step():
    def life(board, steps):
        for _ in range(steps):
            n = sum(np.roll(np.roll(board, dy, axis=0), dx, axis=1)
                    for dy in (-1, 0, 1) for dx in (-1, 0, 1) if (dy, dx) != (0, 0))
            board = ((n == 3) | ((board == 1) & (n == 2))).astype(np.uint8)
        return board
    rng = np.random.default_rng(3)
    board = (rng.random((40, 50)) < 0.3).astype(np.uint8)
    check(life, board, 6)
