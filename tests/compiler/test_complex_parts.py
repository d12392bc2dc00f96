"""np.real, np.imag (and .real, .imag of computed arrays) and np.angle in the graph: the
parts of a complex array are views (writes through them land in the array), of a real
array the array itself and read-only zeros, of a NumPy scalar new scalars."""
import numpy as np
import pytest

import npcompile
from conftest import DEVICE, check, make
from test_trace_loops import compiled_without_fallback

R = make((4, 5), np.float64)
Z = R + 1j * make((4, 5), np.float64, 1)
Z64 = Z.astype(np.complex64)
I = make((4, 5), np.int32, 2, low=-9, high=9)


def no_break(kernels=True):
    assert npcompile.report()["graph_breaks"] == []
    compiled_without_fallback(kernels)


CASES = {
    "real": lambda z: np.real(z * 2) + 1,
    "imag": lambda z: np.imag(z * 2) * 3,
    "attributes": lambda z: (z * 2).real - (z + 1).imag,
    "angle": lambda z: np.angle(z * 1) + 1,
    "angle_deg": lambda z: np.angle(z + 1, deg=True) * 2,
    "abs_by_parts": lambda z: np.sqrt(np.real(z) ** 2 + np.imag(z) ** 2),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_parts_in_the_graph(name):
    for a in (Z, Z64, R, I):
        npcompile.reset()
        check(CASES[name], a)
        no_break()


@pytest.mark.skipif(DEVICE == "cuda", reason="a scalar's part comes back as a 0-d array "
                    "on the device: an open gap")
def test_scalars_and_0d():
    """A NumPy scalar's parts are NumPy scalars; a 0-d array's are 0-d arrays."""
    for f in (lambda z: np.real(z.sum()), lambda z: np.imag(z.sum()),
              lambda z: np.angle(z.sum()), lambda z: np.real(z[0, 0] * 2),
              lambda z: np.imag(np.asarray(z[1, 1] + 0)), lambda z: np.angle(z[0, 0], deg=True)):
        for a in (Z, R, I):
            npcompile.reset()
            check(f, a)
            no_break(kernels=False)


def test_dtypes_are_numpys():
    """np.angle of int8 is float16 (arctan2's promotion), which runs in NumPy; of bool
    float64."""
    for dt in (np.int8, np.uint16, np.bool_, np.float32):
        check(lambda z: np.angle(z * 1) + np.real(z), make((3, 2), dt))


def test_real_of_a_real_array_is_the_array():
    def same(x):
        y = x * 2
        return np.real(y) is y, y.real is y
    check(same, R)


def test_writes_through_the_parts_land_in_the_array():
    def write(z):
        y = z * 2
        np.real(y)[0] = 7.0
        np.imag(y)[:, 1] += 1.0
        y.imag[2] = -1.0
        return y
    for a in (Z, Z64):
        npcompile.reset()
        check(write, a)
        assert npcompile.report()["graph_breaks"] == []

    def set_attributes(z):
        z.real = 3.0
        y = z + 1
        y.imag = z.real
        return y
    check(set_attributes, Z.copy())


def test_numpys_errors():
    def imag_of_real(x):
        y = x * 2
        np.imag(y)[0] = 1.0          # read-only: ValueError

    def set_imag_of_real(x):
        y = x * 2
        y.imag = 1.0                 # TypeError
    check(imag_of_real, R)
    check(set_imag_of_real, R)
