"""Loops cut at a concatenation's seams (codegen/cpp_intervals.py): a slice update
such as `u[1:-1] = f(u[2:], u[:-2])` writes all of u, and its interior renders without
the select and the clamped reads that kept the loop from vectorizing. Differential
against NumPy, and the kernel's source must show the cut: a test that only compared
values would pass with the select too."""
import os

import numpy as np
import pytest

import npcompile
from npcompile.backends import cpu
from npcompile.codegen import cpp_intervals
from conftest import DEVICE, check, make

@pytest.fixture(autouse=True)
def _bodies(bodies_compiled_once):
    """The body compiled once, whose kernels are cut, not the scalar nest."""


CPU_KERNELS = pytest.mark.skipif(not cpu.AVAILABLE or DEVICE == "cuda" or
                                 os.environ.get("NPC_BACKEND") == "reference",
                                 reason="inspects the CPU backend's kernels")


def heat(u, r, steps):
    for _ in range(steps):
        u[1:-1] = u[1:-1] + r * (u[2:] - 2 * u[1:-1] + u[:-2])
    return u


def jacobi2d(u, steps):
    for _ in range(steps):
        u[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
    return u


def two_seams(u, v, steps):
    """Two updates of different widths, v's reading u as just updated."""
    for _ in range(steps):
        u[1:-1] = u[1:-1] + 0.1 * (v[2:] - v[:-2])
        v[2:-2] = v[2:-2] + 0.1 * (u[3:-1] - u[1:-3])
    return u, v


def out_copy(img, passes):
    for _ in range(passes):
        out = img.copy()
        out[1:-1, 1:-1] = (img[:-2, 1:-1] + img[2:, 1:-1] + img[1:-1, :-2]
                           + img[1:-1, 2:] + img[1:-1, 1:-1]) / 5
        img = out
    return img


def shrinking(a):
    """Moving slices: one kernel text serves every k (sizes given at run time), and its
    seams are run-time sizes."""
    for k in range(1, a.shape[0] - 1):
        a[k:] = a[k:] * 0.5 + 1.0
    return a


def ends_only(u):
    u[:3] = 0.0
    u[-3:] = u[-3:] * 2
    return u


CASES = [
    (heat, lambda: (make((40,), np.float64), 0.3, 7)),
    (heat, lambda: (make((3,), np.float64), 0.3, 2)),        # an interior of one element
    (heat, lambda: (make((64,), np.float32), np.float32(0.2), 5)),
    (jacobi2d, lambda: (make((17, 23), np.float64), 4)),
    (jacobi2d, lambda: (make((3, 3), np.float64), 3)),
    (two_seams, lambda: (make((50,), np.float64), make((50,), np.float64, 1), 6)),
    (out_copy, lambda: (make((20, 31), np.float32), 3)),
    (shrinking, lambda: (make((12,), np.float64),)),
    (ends_only, lambda: (make((10,), np.float64),)),
]


@pytest.mark.parametrize("fn,args", CASES, ids=[f"{f.__name__}{i}" for i, (f, _) in enumerate(CASES)])
def test_values_as_numpy(fn, args):
    check(fn, *args())
    assert npcompile.report()["fallbacks"] == []


def _sources():
    return [k["source"] for k in npcompile.report()["kernel_sources"]
            if k["source"].startswith("// npcompile kernel")]


@CPU_KERNELS
@pytest.mark.parametrize("fn,args,loops", [
    (heat, (make((5000,), np.float64), 0.3, 3), 3),
    (jacobi2d, (make((40, 50), np.float64), 2), 3 + 3 * 3),
    (two_seams, (make((500,), np.float64), make((500,), np.float64, 1), 2), 3),
])
def test_the_interior_renders_without_select_or_clamp(fn, args, loops):
    npcompile.reset()
    npcompile.jit(fn, choose=False)(*args)
    body = _sources()[-1].split('extern "C"')[0]
    assert "npc_clamp_i64" not in body, body
    # one loop per part of each cut axis
    assert body.count("for (i64 i") == loops, body


@CPU_KERNELS
def test_a_roll_of_an_argument_is_not_copied():
    """np.roll of a loaded array is a select of loads: no computed piece, no cut (life's
    eight rolls cut into nine bodies compiled for 4 s)."""
    def life(c):
        n = sum(np.roll(np.roll(c, i, 0), j, 1) for i in (-1, 0, 1) for j in (-1, 0, 1)) - c
        return ((n == 3) | ((c == 1) & (n == 2))).astype(np.int8)
    npcompile.reset()
    c = (make((12, 12), np.int8, seed=4) > 20).astype(np.int8)
    check(life, c)
    assert all(s.count("for (i64 i0") == 1 for s in _sources()), _sources()


def test_seams_merge_into_intervals():
    """Numbers: every concatenation's seams along an axis, merged and sorted. Run-time
    sizes: an axis is cut only where its concatenations agree (their order is unknown)."""
    got = cpp_intervals.plan({"i0": {(1, 99), (2, 98)}}, 1, 10)
    assert got == {"i0": [(0, 1), (1, 2), (2, 98), (98, 99), (99, None)]}
    assert cpp_intervals.piece((2, 98), [0, 1, 99], [1, 99, 100]) == 1
    assert cpp_intervals.piece((99, None), [0, 1, 99], [1, 99, 100]) == 2
    assert cpp_intervals.piece((0, 2), [0, 1, 99], [1, 99, 100]) is None
    assert cpp_intervals.plan({"i0": {(1, "S3")}}, 1, 10) == \
        {"i0": [("piece", (1, "S3"), k) for k in range(3)]}
    assert cpp_intervals.plan({"i0": {(1, "S3"), (2, "S4")}}, 1, 10) == {}
    # inner axes first, and no more copies of a body than its size allows
    two = {"i0": {(1, 9)}, "i1": {(1, 9)}}
    assert set(cpp_intervals.plan(two, 2, 10)) == {"i0", "i1"}
    assert set(cpp_intervals.plan(two, 2, cpp_intervals.MAX_LINES // 4)) == {"i1"}
    assert cpp_intervals.plan(two, 2, cpp_intervals.MAX_LINES) == {}
