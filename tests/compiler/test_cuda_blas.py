"""Matrix products on the GPU through cuBLAS (backends/cuda_blas.py), without a GPU: over
fake_cuda, whose gemm reads its operands as cuBLAS does (column-major, leading
dimensions, strided batches). What is checked here is the arithmetic that maps NumPy's
row-major views onto it: every layout gives NumPy's product, and what cuBLAS cannot read
(integers, a view strided in both axes) stays NumPy's step on the host."""
import os

import numpy as np
import pytest

import npcompile
from npcompile.backends import cuda_blas, cuda_runtime

from fake_cuda import FakeCuda


# the products are steps of CUDA programs: the reference path compiles none
pytestmark = pytest.mark.skipif(os.environ.get("NPC_BACKEND") == "reference",
                                reason="the reference path builds no CUDA program")


@pytest.fixture(autouse=True)
def fake(monkeypatch):
    f = FakeCuda(cuda_runtime._cuda)
    calls = []
    real = f.gemm

    def gemm(*args):
        calls.append(args)
        return real(*args)
    monkeypatch.setattr(f, "gemm", gemm, raising=False)
    monkeypatch.setattr(cuda_runtime, "_cuda", f)
    monkeypatch.setattr(cuda_runtime, "_INFO", None)
    f.gemm_calls = calls
    return f


def rand(shape, dtype=np.float64, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


CASES = {
    "mat_mat": lambda a, b: a @ b,
    "at_b": lambda a, b: a.T @ b,
    "a_bt": lambda a, b: a @ b.T,
    "at_bt": lambda a, b: a.T @ b.T,
    "mat_vec": lambda a, b: a @ b[:, 0],
    "vec_mat": lambda a, b: a[0] @ b,
    "every_other_row": lambda a, b: a[::2] @ b[:, 1],
    "vec_vec": lambda a, b: a[0] @ b[:, 1],
    "dot": lambda a, b: np.dot(a, b),
    "sliced_rows": lambda a, b: a[1:5] @ b[:, 2:7],
}


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("name", sorted(CASES))
def test_products_of_every_layout_are_numpys(name, dtype, fake):
    a, b = rand((6, 6), dtype, 1), rand((6, 6), dtype, 2)
    fn = CASES[name]
    want = fn(a, b)
    got = npcompile.jit(fn, device="cuda", choose=False)(npcompile.to_device(a),
                                                          npcompile.to_device(b))
    got = got.get() if hasattr(got, "get") else got
    np.testing.assert_allclose(got, want, rtol=1e-5 if dtype == np.float32 else 1e-12)
    assert np.asarray(got).dtype == want.dtype and np.shape(got) == np.shape(want)
    assert fake.gemm_calls, "the product did not reach cuBLAS"


def test_batched_and_broadcast_batches(fake):
    a, b, c = rand((3, 4, 5)), rand((3, 5, 2)), rand((5, 2))
    for x, y in ((a, b), (a, c), (rand((4, 5)), b)):
        got = npcompile.jit(lambda p, q: p @ q, device="cuda", choose=False)(
            npcompile.to_device(x), npcompile.to_device(y))
        np.testing.assert_allclose(got.get(), x @ y, rtol=1e-12)
    assert any(call[-1] == 3 for call in fake.gemm_calls)      # one strided-batched call


def test_what_cublas_cannot_read_is_numpys_step(fake):
    ai, bi = np.arange(16).reshape(4, 4), np.arange(16).reshape(4, 4) % 3
    got = npcompile.jit(lambda p, q: p @ q, device="cuda", choose=False)(
        npcompile.to_device(ai), npcompile.to_device(bi))
    np.testing.assert_array_equal(got.get(), ai @ bi)
    a = rand((8, 8))
    got = npcompile.jit(lambda p, q: p[::2, ::2] @ q, device="cuda", choose=False)(
        npcompile.to_device(a), npcompile.to_device(a[:4, :4].copy()))
    np.testing.assert_allclose(got.get(), a[::2, ::2] @ a[:4, :4], rtol=1e-12)
    assert not fake.gemm_calls


def test_the_layout_of_a_size_one_axis_is_either():
    assert cuda_blas._as_matrix((1, 5), (40, 8), 8) == (False, 5)
    assert cuda_blas._as_matrix((1, 5), (8, 16), 8) == (True, 2)
    assert cuda_blas._as_matrix((5, 1), (16, 8), 8) == (False, 2)
    assert cuda_blas._as_matrix((3, 4), (8, 24), 8) == (True, 3)
    assert cuda_blas._as_matrix((3, 4), (64, 16), 8) is None
