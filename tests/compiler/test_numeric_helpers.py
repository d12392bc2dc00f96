"""More of NumPy's helpers as library steps (numeric_library.py, library_rules' n-d
FFTs): np.nan_to_num, np.sinc, np.ediff1d, np.nancumsum, np.nancumprod, np.polyfit,
np.inner, np.vdot, np.linalg.multi_dot, np.fft.fftn / rfft2 / irfft2 / rfftn / irfftn.
No graph break, NumPy's values, dtypes, shapes, scalar types and errors."""
import numpy as np
import pytest

import npcompile
from conftest import check, make
from test_trace_loops import compiled_without_fallback


def no_break():
    assert npcompile.report()["graph_breaks"] == []
    compiled_without_fallback()


A = make((6, 5), np.float64)

CASES = {
    "nan_to_num": lambda a: np.nan_to_num(np.log(a) * 1, nan=-1.0, posinf=9.0) + 1,
    "nan_to_num_default": lambda a: np.nan_to_num(a / (a - a)) * 2,
    "sinc": lambda a: np.sinc(a / 10) + 1,
    "ediff1d": lambda a: np.ediff1d(a * 2) + 1,
    "ediff1d_ends": lambda a: np.ediff1d(a[0] * 1, to_end=[9.0, 8.0], to_begin=-1.0) * 2,
    "nancumsum": lambda a: np.nancumsum(np.where(a > 5, np.nan, a), axis=1) + 1,
    "nancumprod_flat": lambda a: np.nancumprod(np.where(a > 5, np.nan, a / 40)) * 2,
    "polyfit": lambda a: np.polyfit(a[:, 0] * 1, a[:, 1], 2) + 1,
    "polyfit_2d_w": lambda a: np.polyfit(a[:, 0], a[:, 1:3] * 2, 1, w=np.abs(a[:, 4])) - 1,
    "inner": lambda a: np.inner(a * 2, a[:3]) + 1,
    "inner_vec": lambda a: np.inner(a[0] * 1, a[1]) + 1,
    "vdot": lambda a: np.vdot(a * 1, a) + 1,
    "multi_dot": lambda a: np.linalg.multi_dot([a * 1, a.T, a]) + 1,
    "multi_dot_vectors": lambda a: np.linalg.multi_dot([a[:, 0], a, a.T, a[:, 1]]) * 2,
    "fftn": lambda a: np.abs(np.fft.fftn(a * 2)) + 1,
    "ifftn_s": lambda a: np.abs(np.fft.ifftn(a + 1, s=(4, 8))) * 2,
    "rfft2_irfft2": lambda a: np.fft.irfft2(np.fft.rfft2(a * 1), s=a.shape) + 1,
    "rfftn_axes": lambda a: np.abs(np.fft.rfftn(a * 2, axes=(0,))) + 1,
    "irfftn_default": lambda a: np.fft.irfftn(np.fft.rfftn(a[:, :4] * 1)) * 2,
    "fft2_s": lambda a: np.abs(np.fft.fft2(a * 2, s=(3, 7))) - 1,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_numeric_helpers_in_the_graph(name):
    check(CASES[name], A)
    no_break()


ERRORS = {
    "inner_mismatch": lambda a: np.inner(a * 1, a.T),
    "vdot_lengths": lambda a: np.vdot(a * 1, a[0]),
    "multi_dot_mismatch": lambda a: np.linalg.multi_dot([a * 1, a, a]),
    "polyfit_negative": lambda a: np.polyfit(a[:, 0] * 1, a[:, 1], -1),
    "polyfit_lengths": lambda a: np.polyfit(a[:, 0] * 1, a[:3, 1], 1),
    "irfftn_one": lambda a: np.fft.irfftn(a[:, :1] * 1),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_are_numpys(name):
    r = check(ERRORS[name], A)
    assert type(r).__name__ == "Raised"


def test_nan_to_num_in_place_is_numpys():
    check(lambda a: (np.nan_to_num(a, copy=False), a * 1)[1], np.where(A > 5, np.nan, A))
