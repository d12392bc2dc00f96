"""Views are index maps: slicing with steps, None, ..., reshape, transpose and friends."""
import numpy as np
import pytest

from conftest import check, make

KEYS = [(slice(1, 3),), (slice(None, None, -1),), (slice(None, None, 2), slice(1, None, 3)),
        (None, Ellipsis), (Ellipsis, None), (1,), (-1, slice(None)), (slice(None), 2),
        (1, 2), (slice(5, 1, -2),), (Ellipsis, 0), (slice(None), None, slice(None, None, -1))]


@pytest.mark.parametrize("key", KEYS, ids=repr)
@pytest.mark.parametrize("dtype", [np.float64, np.int16, np.bool_], ids=lambda d: np.dtype(d).name)
def test_basic_indexing(key, dtype):
    x = make((6, 7), dtype)
    check(lambda a: a[key], x)
    check(lambda a: a[key] * 2 if dtype is not np.bool_ else ~a[key], x)


def test_view_functions():
    x = make((2, 3, 4), np.float64)
    fns = [lambda a: a.reshape(6, 4), lambda a: a.reshape(-1), lambda a: a.reshape((4, -1)),
           lambda a: np.reshape(a, (3, 8)), lambda a: a.ravel(), lambda a: np.ravel(a),
           lambda a: a.T, lambda a: a.transpose(1, 0, 2), lambda a: np.transpose(a, (2, 0, 1)),
           lambda a: a.swapaxes(0, 2), lambda a: np.swapaxes(a, 1, 2),
           lambda a: a[:, :1].squeeze(), lambda a: np.squeeze(a[:1], axis=0),
           lambda a: np.expand_dims(a, 1), lambda a: np.broadcast_to(a[:, :1], (2, 5, 4)),
           lambda a: np.moveaxis(a, 0, -1), lambda a: a.T.reshape(-1), lambda a: a.T.ravel(),
           lambda a: a.flatten(), lambda a: a[:, ::-1].reshape(2, 12), lambda a: a.copy()]
    for f in fns:
        check(f, x)
        check(lambda a: f(a) + 1, x)
    check(lambda a: a.reshape(7), x)  # NumPy raises ValueError: so must we


def test_len_shape_static_no_break():
    import npcompile

    def f(a):
        n = len(a)
        if a.shape[1] == 3 and a.ndim == 2 and a.dtype == np.float64:
            return a * n
        return a
    x = make((4, 3), np.float64)
    check(f, x)
    e = npcompile.explain(f)(x)
    assert e.graph_break_count == 0 and e.graph_count == 1


def test_creation_while_tracing():
    x = make((3, 4), np.float64)
    check(lambda a: a + np.zeros(4), x)
    check(lambda a: a + np.ones((3, 4), np.float32), x)
    check(lambda a: np.full((3, 1), 2.5) * a, x)
    check(lambda a: np.zeros_like(a) + np.ones_like(a, dtype=np.int8), x)
    check(lambda a: np.full_like(a, 7), x)
    check(lambda a: a[0] + np.arange(4), x)
    check(lambda a: a[0] * np.arange(0.5, 4.5, 1.0), x)
    check(lambda a: a[0] + np.linspace(0, 1, 4), x)
    check(lambda a: a[:, :3] @ np.eye(3), x)
    check(lambda a: np.asarray(a) + np.array(a) + np.asarray(a, dtype=np.float32), x)


def test_concatenate_stack_matmul_dot():
    a = make((3, 4), np.float64)
    b = make((2, 4), np.float32, seed=3)
    check(lambda x, y: np.concatenate([x, y]), a, b)
    check(lambda x, y: np.concatenate((x, y * 2), axis=0) + 1, a, b)
    check(lambda x, y: np.concatenate([x, y], axis=None), a, b)
    check(lambda x, y: np.stack([x[0], y[0], y[1]]), a, b)
    check(lambda x, y: np.stack([x[0], y[0]], axis=1), a, b)
    check(lambda x, y: x @ y.T, a, b)
    check(lambda x, y: np.matmul(x, y[0]), a, b)
    check(lambda x, y: np.dot(x[0], y[1]), a, b)
    check(lambda x, y: x.dot(y.T) * 2, a, b)
    check(lambda x, y: x @ y, a, b)  # mismatch: NumPy's ValueError


def band_sums(a, t):
    fg = (a > t) & (a < 2 * t)
    b = fg.reshape(4, -1, a.shape[1]).sum(axis=(1, 2))
    k = int(b.argmax())          # a graph break while fg, reshaped, is alive
    return b, k, fg.mean()


def test_a_reshape_of_a_ufunc_result_of_c_arrays_keeps_its_graph_compiled():
    """The comparison's result is C-contiguous (its operands are): the reshape is a view,
    known without NumPy, so the graph before the break runs its kernels (it ran op by op
    on the reference path, its layout taken for a guess)."""
    import npcompile
    from test_trace_loops import COMPILED
    a = make((16, 8), np.float64)
    check(band_sums, a, 0.3)
    check(band_sums, np.asfortranarray(a), 0.3)
    if COMPILED:
        npcompile.reset()
        npcompile.jit(band_sums, choose=False)(a, 0.3)
        rep = npcompile.report()
        first = rep["compiles"][0]["graph_id"]
        assert any(k["graph_id"] == first for k in rep["kernels"]), rep["kernels"]


def _erode(b):
    p = np.pad(b, 1, mode="constant", constant_values=False)
    return b & p[:-2, 1:-1] & p[2:, 1:-1] & p[1:-1, :-2] & p[1:-1, 2:]


def opened_bands(a, t):
    fg = a > t
    for _ in range(3):            # a few: traced as written, each a pad and its views
        fg = _erode(fg)
    fg = fg | np.pad(fg, 1)[2:, 1:-1]
    b = fg.reshape(4, -1, a.shape[1]).sum(axis=(1, 2))
    k = int(b.argmax())
    return b, k, fg


def test_a_reshape_after_pads_and_their_views_keeps_its_graph_compiled():
    """Erosions of a padded mask: ufunc results of views of concatenations of np.full
    edges, all C-ordered, so NumPy's result is C-contiguous and the reshape a view,
    known without NumPy (trace/view_rules._c_result, asked once per node). The graph
    ran op by op on the reference path at every call (otsu_morph_open, 5x slower than
    NumPy); a view with a step back stays a guess."""
    import npcompile
    from test_trace_loops import COMPILED, DEVICE
    a = make((16, 8), np.float64)
    check(opened_bands, a, 0.3)
    check(opened_bands, np.asfortranarray(a), 0.3)
    if COMPILED:
        npcompile.reset()
        npcompile.jit(opened_bands, choose=False, loops=False, device=DEVICE)(a, 0.3)
        rep = npcompile.report()
        assert not any(k["target"] == "reference" for k in rep["kernels"]), rep["kernels"]
        assert rep["fallbacks"] == []
