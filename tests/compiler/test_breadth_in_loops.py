"""A loop body using the functions issue 15 made trace (np.real, np.angle, np.cross,
np.select, ufunc.outer, np.fill_diagonal, np.gradient) compiles once:
none of them stops the body from compiling, and the values are NumPy's."""
import numpy as np

import npcompile
from conftest import DEVICE, check, make
from test_trace_loops import CPU_KERNELS


def rotate(z, axis, n):
    """A complex field turned by its angle, positions crossed with an axis, a clipped
    pairwise matrix with its diagonal set, and its slope, per step."""
    p = np.stack([z.real, z.imag, np.abs(z)], axis=1)
    for _ in range(n):
        phase = np.angle(z) + 0.01
        z = np.abs(z) * np.exp(1j * phase) * 0.999
        p = p + 0.01 * np.cross(p, axis)
        d = np.subtract.outer(np.real(z), np.imag(z))
        d = np.select([d > 1, d < -1], [1.0, -1.0], default=d)
        np.fill_diagonal(d, 0.0)
        z = z + 1e-3 * np.gradient(d.sum(axis=0))
    return z, p


def test_values_are_numpys():
    z = make((16,), np.float64) + 1j * make((16,), np.float64, 1)
    for n in (0, 1, 12):
        check(rotate, z, np.array([0.0, 0.0, 1.0]), n)


@CPU_KERNELS
def test_the_body_compiles_once():
    z = make((16,), np.float64) + 1j * make((16,), np.float64, 1)
    npcompile.reset()
    npcompile.jit(rotate, device=DEVICE)(z, np.array([0.0, 0.0, 1.0]), 12)
    rep = npcompile.report()
    assert rep["fallbacks"] == [] and rep["graph_breaks"] == []
    (loop,) = rep["loops"]
    assert "12 iterations, one compiled body" in loop["summary"], loop["summary"]
