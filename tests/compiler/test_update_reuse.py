"""In-place writes reuse their base's memory where no one can see the old version
(fusion/reuse.py), and copy it where someone can: a view of the old version read
later, the old version returned, or the caller's own array mid-graph. Differential
against NumPy, and the compiled program is checked for which updates reused."""
import os

import numpy as np
import pytest

import npcompile
from npcompile.exec.engine import ENGINE
from conftest import DEVICE, check, make, same


def programs():
    """The compiled programs of the last traced calls."""
    return [e.compiled for e in ENGINE.cache.entries.values() if e.compiled is not None]


def rows(a):
    L = np.zeros_like(a)
    for k in range(a.shape[0]):
        L[k] = a[k] * 2.0 + 1.0
    return L


def old_view_read_after(a):
    b = a * 1.0
    v = b[2:5]          # a view of b's version before the write
    b[3] = 100.0
    return v * 1.0, b   # NumPy: v sees the write (it is a view of the same memory)


def old_version_returned(a):
    b = a + 1.0
    c = b.copy()
    b[0] = -7.0
    return b, c


def old_version_read_by_a_later_kernel(a):
    b = a * 2.0
    d = b * 3.0         # inlined into e's kernel, which runs after the write below
    b[0] = 5.0
    e = d + 1.0
    return e, b


def caller_array_written(a):
    for k in range(3):
        a[k] = a[k + 1] * 2.0
    return a.sum()


def overlapping_self_assignment(a):
    b = a * 1.0
    for _ in range(3):
        b[1:] = b[:-1] + 1.0
    return b


@pytest.mark.parametrize("fn", [rows, old_view_read_after, old_version_returned,
                                old_version_read_by_a_later_kernel,
                                caller_array_written, overlapping_self_assignment])
def test_values_and_arguments_match_numpy(fn):
    check(fn, make((6, 3), np.float64) if fn is rows else make((8,), np.float64))
    fallbacks = npcompile.report()["fallbacks"]
    if DEVICE == "cuda" and fallbacks:        # the values were checked already
        pytest.xfail(f"device='cuda' fell back: {fallbacks[0]['reason']} (issue 14's note)")
    assert fallbacks == []


@pytest.mark.skipif(os.environ.get("NPC_BACKEND") == "reference" or DEVICE == "cuda",
                    reason="inspects the CPU backend's programs")
def test_a_loop_of_row_writes_reuses_its_matrix(monkeypatch):
    monkeypatch.setenv("NPC_NATIVE_LOOPS", "0")     # (a loop nest takes float64 rows whole)
    npcompile.jit(rows)(make((6, 3), np.float64))
    progs = programs()
    assert progs and all(len(p.reuse) >= 5 for p in progs if hasattr(p, "reuse"))


@pytest.mark.skipif(os.environ.get("NPC_BACKEND") == "reference" or DEVICE == "cuda",
                    reason="inspects the CPU backend's programs")
def caller_array_written_then_cast(a):
    for k in range(3):
        a[k] = a[k + 1] * 2.0
    return (a * 1e30).astype(np.int32)   # may fail at run time: NumPy must handle it


def test_the_callers_array_is_written_in_place_only_when_nothing_after_can_fail():
    """A failed run is run again from the leaves: where a later step may fail (a
    float->int cast the kernel checks), the caller's array must still be as it was."""
    for fn, in_place in ((caller_array_written_then_cast, False), (caller_array_written, True)):
        npcompile.reset()
        a = make((8,), np.float64)
        want = fn(a.copy())
        got_a = a.copy()
        with np.errstate(all="ignore"):
            got = npcompile.jit(fn, loops=False)(got_a)
        same(got, want)
        np.testing.assert_array_equal(got_a, (lambda b: (fn(b), b)[1])(a.copy()))
        for p in programs():
            first_update = min((q for q, c in p.calls.items() if c[0].__name__ == "update"),
                               default=None)
            assert first_update is not None and (first_update in p.reuse) == in_place
