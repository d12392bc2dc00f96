"""np.cross, np.vander, np.trapezoid (np.trapz), np.convolve, np.correlate, np.gradient
and np.unwrap as NumPy steps inside the graph (trace/numeric_library.py): no graph
break, NumPy's values, dtypes, shapes, scalar types and errors."""
import numpy as np
import pytest

import npcompile
from conftest import Raised, check, make
from test_trace_loops import compiled_without_fallback

# np.trapezoid from NumPy 2.0, np.trapz before it (NumPy 2.4 has only trapezoid)
trapezoid = getattr(np, "trapezoid", None) or np.trapz

A = make((6, 3), np.float64)
F32 = make((4, 3), np.float32, 1)
I = make((5, 3), np.int32, 2, low=-9, high=9)
V = make((7,), np.float64, 3)


def no_break():
    assert npcompile.report()["graph_breaks"] == []
    compiled_without_fallback()


CASES = {
    "cross": lambda x: np.cross(x * 2, x[::-1] + 1) + 1,
    "cross_2d_3d": lambda x: np.cross(x[:, :2] * 1, x[::-1]) * 2,
    "cross_axis0": lambda x: np.cross(x[:3].T * 1, x[:3].T + 1, axis=0) - 1,
    "cross_axisc": lambda x: np.cross(x * 1, x[0], axisc=0) + 0,
    "cross_broadcast": lambda x: np.cross(x[:, None, :] * 1, x[None, :2, :]) * 1,
    "vander": lambda x: np.vander(x[:, 0] * 1, 4) + 1,
    "vander_square": lambda x: np.vander(x[0] + 1, increasing=True) * 2,
    "trapezoid": lambda x: trapezoid(x * 2) + 1,
    "trapezoid_axis0": lambda x: trapezoid(x * 1, axis=0) * 2,
    "trapezoid_dx": lambda x: trapezoid(x + 1, dx=0.5, axis=-2) - 1,
    "trapezoid_x": lambda x: trapezoid(x * 1, x=np.arange(x.shape[-1]) ** 2) + 1,
    "trapezoid_x2d": lambda x: trapezoid(x + 1, x=x * x, axis=0) * 1,
    "trapezoid_1d": lambda x: trapezoid(x[:, 0] * 2) + 1,
    "convolve": lambda x: np.convolve(x[:, 0] * 2, x[:2, 1]) + 1,
    "convolve_same": lambda x: np.convolve(x[:2, 0] * 1, x[:, 1], mode="same") * 2,
    "convolve_valid": lambda x: np.convolve(x[:, 0] + 1, x[:3, 1], "valid") - 1,
    "correlate": lambda x: np.correlate(x[:, 0] * 2, x[:3, 2]) + 1,
    "correlate_full": lambda x: np.correlate(x[:3, 0] + 1, x[:, 2], mode="full") * 1,
    "gradient": lambda x: np.gradient(x[:, 0] * 2) + 1,
    "gradient_2d": lambda x: [g * 1 for g in np.gradient(x * 2)],
    "gradient_axis": lambda x: np.gradient(x * 1, 0.5, axis=0) * 2,
    "gradient_coords": lambda x: [g + 1 for g in np.gradient(
        x + 1, np.arange(x.shape[0]) ** 2, 2.0, edge_order=2)],
    "unwrap": lambda x: np.unwrap(x * 2) + 1,
    "unwrap_axis": lambda x: np.unwrap(x * 1, axis=0, discont=4.0) - 1,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_numeric_helper_in_the_graph(name):
    for a in (A, F32, I):
        npcompile.reset()
        if isinstance(check(CASES[name], a), Raised):
            continue   # (NumPy 2.5 refuses the cross of 2- and 3-vectors: its error, no graph)
        no_break()


def test_results_as_numpy_hands_them_back():
    """A 1-d trapezoid is a NumPy scalar; a gradient of several axes a list (a tuple
    on NumPy 2), of one axis an array; the cross of two 2-vectors their z component."""
    check(lambda v: trapezoid(v * 2), V)
    check(lambda v: trapezoid(v * 2, v + 1), V)
    check(lambda v: np.gradient(v * 1, axis=0), V)
    check(lambda a: np.gradient(a * 1, axis=(1,)), A)
    check(lambda a: np.gradient(a * 1, axis=(0, -1)), A)
    check(lambda a: np.cross(a[:, :2] * 1, a[:, 1:]), A)
    check(lambda v: np.convolve(v.sum(), v * 1), V)                 # a 0-d a
    check(lambda v: np.convolve(v * 1j, v + 1j, "same"), V)          # complex
    check(lambda v: np.correlate(v * 1j, v[:3] + 1j), V)             # v conjugated
    check(lambda v: np.vander(v > 0, 3), V)                         # bool: int
    check(lambda v: np.unwrap((v * 3).astype(np.int64), period=6), V)
    for f in (lambda v: trapezoid(v * 1), lambda v: np.gradient(v + 0),
              lambda v: np.cross(v[:3] * 1, v[3:6])):
        npcompile.reset()
        check(f, V)
        no_break()


def test_big_arrays_stay_in_the_graph():
    """NumPy's dtype from small stand-ins: a big call is not run twice at trace time."""
    big = make((100_000, 3), np.float64)
    check(lambda a: np.cross(a * 2, a[::-1]) + 1, big)
    no_break()
    check(lambda a: [g * 1 for g in np.gradient(a + 1, edge_order=2)], big)
    no_break()


def test_numpys_errors():
    check(lambda a: np.cross(a[:, :1] * 1, a), A)                    # dimension 1
    check(lambda a: np.cross(a * 1, a[:4]), A)                       # do not broadcast
    check(lambda a: np.cross(a * 1, a, axisa=3), A)                  # AxisError
    check(lambda a: np.vander(a * 1), A)                             # 2-d x
    check(lambda a: np.vander(a[0] * 1, -1), A)
    check(lambda a: trapezoid(a * 1, axis=2), A)
    check(lambda a: trapezoid(a.sum()), A)                           # 0-d y
    check(lambda a: trapezoid(a * 1, x=np.arange(4.0)), A)           # 3 pairs, 2 steps
    check(lambda a: np.convolve(a * 1, a[0]), A)                     # 2-d
    check(lambda a: np.convolve(a[0] * 1, a[:0, 0]), A)              # empty
    check(lambda a: np.correlate(a[0] * 1, a[0], mode="middle"), A)
    check(lambda a: np.gradient(a[:1] * 1, axis=0), A)               # too short
    check(lambda a: np.gradient(a[:2] * 1, axis=0, edge_order=2), A)
    check(lambda a: np.gradient(a * 1, np.arange(5.0), axis=0), A)   # wrong length
    check(lambda a: np.gradient(a * 1, 1.0, 2.0, 3.0), A)            # too many
    check(lambda a: np.gradient(a * 1, axis=(0, 0)), A)
    check(lambda a: np.unwrap(a.sum()), A)
    check(lambda a: np.unwrap(a * 1, axis=-3), A)
