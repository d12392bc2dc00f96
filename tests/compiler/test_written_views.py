"""Writing through what a NumPy function returns: where NumPy returns a view, the write
lands in the operand (or raises, for a read-only view); where it returns a copy, the
operand is left alone. A traced call must do the same: a view computed as a new array
loses the write, a wrong result with no error (np.einsum('ii->i', A) did)."""
import numpy as np
import pytest

from conftest import check

VIEWS = {
    "diagonal": lambda A: np.diagonal(A), "A.diagonal": lambda A: A.diagonal(),
    "einsum_copy": lambda A: np.einsum("ij->ij", A), "einsum_diag": lambda A: np.einsum("ii->i", A[:4]),
    "einsum_T": lambda A: np.einsum("ij->ji", A), "flip": lambda A: np.flip(A),
    "fliplr": lambda A: np.fliplr(A), "flipud": lambda A: np.flipud(A), "rot90": lambda A: np.rot90(A),
    "split": lambda A: np.split(A, 2)[0], "hsplit": lambda A: np.hsplit(A, 2)[1],
    "vsplit": lambda A: np.vsplit(A, 4)[3], "array_split": lambda A: np.array_split(A, 3)[1],
    "view": lambda A: A.view(), "ravel": lambda A: np.ravel(A), "A.ravel": lambda A: A.ravel(),
    "moveaxis": lambda A: np.moveaxis(A, 0, 1), "atleast_3d": lambda A: np.atleast_3d(A),
    "squeeze": lambda A: np.squeeze(A[None]), "broadcast_to": lambda A: np.broadcast_to(A, (2,) + A.shape),
    "real": lambda A: A.real, "np.real": lambda A: np.real(A), "imag": lambda A: A.imag,
    "A.T": lambda A: A.T, "transpose": lambda A: np.transpose(A), "reshape": lambda A: np.reshape(A, (-1,)),
    "newaxis": lambda A: A[..., None], "asarray": lambda A: np.asarray(A),
    "ascontiguousarray": lambda A: np.ascontiguousarray(A), "triu": lambda A: np.triu(A),
    "diag": lambda A: np.diag(A), "swapaxes": lambda A: A.swapaxes(0, 1),
    "expand_dims": lambda A: np.expand_dims(A, 0), "strided": lambda A: A[:, ::2],
    "fancy": lambda A: A[[0]], "mask": lambda A: A[A > 0],
    "sliding": lambda A: np.lib.stride_tricks.sliding_window_view(A, 2, axis=0),
    "take_along": lambda A: np.take_along_axis(A, np.zeros((1, 4), int), 0),
}


def _written(fn, whole):
    def f(x):
        A = np.outer(x * 1.0, x[:4] * 2.0).copy()
        v = fn(A)
        if whole:
            v[...] = 7.0
        else:
            v[0] = 7.0
        return A
    return f


@pytest.mark.parametrize("whole", [True, False])
@pytest.mark.parametrize("name", sorted(VIEWS))
def test_a_write_through_a_result_lands_where_numpys_does(name, whole):
    check(_written(VIEWS[name], whole), np.random.default_rng(0).standard_normal(8))
