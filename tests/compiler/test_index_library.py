"""Functions of integer indices as steps inside the graph (trace/index_library.py):
np.bincount where the trace bounds its input below minlength (trace/value_bounds.py),
np.unravel_index, np.digitize, np.isin, np.lexsort, np.repeat, np.tile; and the probe of
np.argpartition / np.take on arrays too large for a full-size stand-in. No graph break,
NumPy's values, dtypes, shapes, scalar types and errors; a bincount the trace cannot
bound stays NumPy's call (a break), with NumPy's result."""
import numpy as np
import pytest

import npcompile
from conftest import check, make
from test_trace_loops import compiled_without_fallback


def no_break():
    assert npcompile.report()["graph_breaks"] == []
    compiled_without_fallback()


def breaks():
    return [b["reason"] for b in npcompile.report()["graph_breaks"]]


X = np.random.default_rng(3).normal(0.0, 1.0, 500)
D = make((30, 12), np.float64)
V = make((40,), np.int64, 2, low=0, high=5)
U8 = make((64, 64), np.uint8, 4, high=255)


def hist_means(x, nbins, lo, hi):
    """Histogram by hand: clipped bin indices, counts and per-bin means."""
    idx = ((x - lo) / (hi - lo) * nbins).astype(np.int64)
    idx = np.clip(idx, 0, nbins - 1)
    counts = np.bincount(idx, minlength=nbins)
    sums = np.bincount(idx, weights=x, minlength=nbins)
    return counts, sums / np.maximum(counts, 1)


def kmeans_step(pts, cents):
    """One Lloyd step: labels by argmin, cluster sizes by bincount of the labels."""
    d = ((pts[:, None, :] - cents[None, :, :]) ** 2).sum(-1)
    labels = np.argmin(d, axis=1)
    sizes = np.bincount(labels, minlength=cents.shape[0])
    sums = np.stack([np.bincount(labels, weights=pts[:, j], minlength=cents.shape[0])
                     for j in range(pts.shape[1])], axis=1)
    return labels, sums / np.maximum(sizes, 1)[:, None]


BOUNDED = {
    "clip": lambda x: hist_means(x, 16, -3.0, 3.0),
    "uint8_pixels": lambda img: np.bincount((img // 2 + 1).ravel(), minlength=256) * 2,
    "uint8_cdf": lambda img: np.cumsum(np.bincount(img.ravel(), minlength=256)) / img.size,
    "bool": lambda x: np.bincount(x > 0, minlength=2) + 0,
    "mod": lambda v: np.bincount(v * 3 % 4, minlength=4) * 1.5,
    "where": lambda v: np.bincount(np.where(v > 2, 1, 0), minlength=3) + 0,
    "argsort_rank": lambda x: np.bincount(np.argsort(x)[:7], minlength=x.size) + 0,
    "minimum": lambda v: np.bincount(np.minimum(v, 3), minlength=4) + 0,
    "empty": lambda x: np.bincount(np.argmin(np.ones((0, 3)), axis=1), minlength=3) + x.size,
    "weights_f32": lambda x: np.bincount(np.clip((x * 4).astype(np.int32), 0, 3),
                                         weights=x.astype(np.float32), minlength=6),
    "gather_of_bounded": lambda v: np.bincount(np.clip(v, 0, 4)[np.arange(10) % 5],
                                               minlength=5) * 2,
}


@pytest.mark.parametrize("name", sorted(BOUNDED))
def test_bincount_bounded_below_minlength_stays_in_the_graph(name):
    arg = {"uint8_pixels": U8, "uint8_cdf": U8, "mod": V, "where": V, "minimum": V,
           "gather_of_bounded": V}.get(name, X)
    check(BOUNDED[name], arg)
    no_break()


def test_bincount_of_argmin_labels_in_a_lloyd_step():
    pts, cents = make((200, 2), np.float64), make((5, 2), np.float64, 1)
    check(kmeans_step, pts, cents)
    no_break()


UNBOUNDED = {
    "no_minlength": lambda v: np.bincount(np.clip(v, 0, 4)) + 0,
    "bound_reaches_minlength": lambda v: np.bincount(np.clip(v, 0, 4), minlength=4) * 2,
    "argument": lambda v: np.bincount(v, minlength=3) * 1,
    "float_cast": lambda x: np.bincount(np.abs(x * 3).astype(np.int64), minlength=4) + 0,
    "overflowing_sum": lambda v: np.bincount(v.astype(np.uint8) + 254, minlength=255) + 0,
}


@pytest.mark.parametrize("name", sorted(UNBOUNDED))
def test_bincount_the_trace_cannot_bound_is_numpys_call(name):
    check(UNBOUNDED[name], X if name == "float_cast" else V)
    assert any("np.bincount" in r for r in breaks())


ERRORS = {
    "negative": lambda v: np.bincount(np.clip(v - 1, -1, 2), minlength=3) + 0,
    "negative_unused": lambda v: (np.bincount(np.clip(v - 1, -1, 2), minlength=3), v * 2)[1],
    "float": lambda x: np.bincount(x * 1, minlength=3),
    "two_d": lambda v: np.bincount(np.clip(v, 0, 2).reshape(8, 5), minlength=3),
    "weights_length": lambda v: np.bincount(np.clip(v, 0, 2), weights=np.ones(3), minlength=3),
    "negative_minlength": lambda v: np.bincount(np.clip(v, 0, 2), minlength=-1),
    "unravel_out_of_range": lambda v: np.unravel_index(v * 10, (2, 3))[0] + 1,
    "unravel_unused": lambda v: (np.unravel_index(v * 10, (2, 3)), v + 1)[1],
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_are_numpys(name):
    r = check(ERRORS[name], X if name == "float" else V)
    assert type(r).__name__ == "Raised"


OTHERS = {
    "unravel_argmax": lambda a: np.unravel_index(np.argmax(a * 2), a.shape),
    "unravel_argmax_plus": lambda a: [i + 1 for i in np.unravel_index(np.argmax(a), a.shape)],
    "unravel_array": lambda a: [i * 2 for i in
                                np.unravel_index(np.argsort(a, axis=None)[:5], a.shape)],
    "unravel_fortran": lambda a: np.unravel_index(np.argmin(a * 2), a.shape, order="F"),
    "digitize": lambda a: np.digitize(a * 2, [-10.0, 0.0, 10.0]) + 1,
    "digitize_right": lambda a: np.digitize(a[0] + 1, np.linspace(-20, 20, 5), right=True),
    "isin": lambda a: np.isin(np.round(a).astype(np.int64) % 5, [1, 3]) & (a > 0),
    "isin_invert": lambda a: np.isin(np.round(a) % 5, np.array([1.0, 3.0]), invert=True),
    "lexsort": lambda a: np.lexsort((a[:, 1] * 2, np.round(a[:, 0] / 10))) + 0,
    "lexsort_2d": lambda a: np.lexsort(np.round(a[:, :3].T / 10)) * 1,
    "repeat": lambda a: np.repeat(a[0] * 2, 3) + 1,
    "repeat_axis": lambda a: np.repeat(a[:4] + 1, [1, 0, 2, 1], axis=0) * 2,
    "tile": lambda a: np.tile(a[0] * 2, (3, 1)) + 1,
    "tile_int": lambda a: np.tile(a[:2] + 1, 2) * 1,
    "argpartition_axis1": lambda a: np.argpartition(a * 1, 3, axis=1)[:, :3] + 0,
    "partition_axis0": lambda a: np.partition(a + 1, [2, 5], axis=0)[[2, 5]],
    "take_constant": lambda a: np.take(a * 2, [0, 5, 11], axis=1) + 1,
}


@pytest.mark.parametrize("name", sorted(OTHERS))
def test_index_functions_in_the_graph(name):
    check(OTHERS[name], D)
    no_break()


def test_partition_and_take_on_large_arrays_stay_in_the_graph():
    """Past the size where the probe runs at full size, the stand-ins are small: a kth
    or a constant index past their length is checked against the real shape instead."""
    big = make((300, 400), np.float64, 7)
    check(lambda d: np.argpartition(d * 1, 7, axis=1)[:, :7] + 0, big)
    no_break()
    check(lambda d: np.take(d * 2, [0, 5, 399], axis=1) - 1, big)
    no_break()
    check(lambda d: np.sort(np.partition(d + 0, 299, axis=0)[-1]) * 2, big)
    no_break()


@pytest.mark.parametrize("fn", [lambda d: np.argpartition(d * 1, 400, axis=1),
                                lambda d: np.take(d * 2, [0, 400], axis=1),
                                lambda d: (np.take(d * 2, [-401], axis=1), d + 1)[1]])
def test_partition_and_take_out_of_range_on_large_arrays(fn):
    r = check(fn, make((300, 400), np.float64, 7))
    assert type(r).__name__ == "Raised"


def test_knn_vote_in_a_loop_over_rows():
    """kNN's vote: bincount of each row of a gather of labels (not bounded: a break per
    row) gives NumPy's values; the labels clipped to the classes keep it in the graph."""
    def predict(Xtr, ytr, Xte, k):
        d2 = (Xte ** 2).sum(1)[:, None] - 2 * Xte @ Xtr.T + (Xtr ** 2).sum(1)[None, :]
        idx = np.argpartition(d2, k, axis=1)[:, :k]
        votes = np.clip(ytr, 0, 2)[idx]
        return np.array([np.bincount(v, minlength=3).argmax() for v in votes])
    Xtr, Xte = make((60, 3), np.float64), make((8, 3), np.float64, 1)
    ytr = make((60,), np.int64, 2, low=0, high=2)
    check(predict, Xtr, ytr, Xte, 5)
    assert not any("bincount" in r or "argpartition" in r for r in breaks())


def vote(Xtr, ytr, Xte, k):
    """kNN's vote: bincount of each neighbour row of the training labels."""
    d2 = (Xte ** 2).sum(1)[:, None] - 2 * Xte @ Xtr.T + (Xtr ** 2).sum(1)[None, :]
    idx = np.argpartition(d2, k, axis=1)[:, :k]
    votes = ytr[idx]
    return np.array([np.bincount(v, minlength=3).argmax() for v in votes])


def test_labels_read_from_an_argument_bound_the_counts():
    """The labels are an argument: their largest value, read while tracing, keeps each
    row's bincount in the graph; a later call with a larger label is traced again (no
    replay of a plan that read values) and breaks there, with NumPy's values."""
    Xtr, Xte = make((60, 3), np.float64), make((8, 3), np.float64, 1)
    ytr = make((60,), np.int64, 2, low=0, high=2)
    check(vote, Xtr, ytr, Xte, 5)
    assert not any("bincount" in r or "argpartition" in r for r in breaks())
    jitted = npcompile.jit(vote)
    for labels in (ytr, ytr + 2, ytr):
        np.testing.assert_array_equal(jitted(Xtr, labels, Xte, 5), vote(Xtr, labels, Xte, 5))
    check(vote, Xtr, ytr + 2, Xte, 5)
    assert any("bincount" in r for r in breaks())


RAVEL = {
    "pair": lambda v: np.ravel_multi_index((np.clip(v, 0, 2), v % 4), (3, 4)) + 1,
    "broadcast": lambda v: np.ravel_multi_index((np.clip(v, 0, 2)[:, None], np.arange(4)),
                                                (3, 4)) * 2,
    "wrap": lambda v: np.ravel_multi_index((v * 7, v - 9), (3, 4), mode="wrap") + 0,
    "clip_fortran": lambda v: np.ravel_multi_index((v, v), (3, 4), mode="clip", order="F") * 1,
    "scalar": lambda v: np.ravel_multi_index((np.argmax(v), 1), (40, 2)) + 1,
    "unbounded_in_range": lambda v: np.ravel_multi_index((v, v), (6, 6)) - 1,
}


@pytest.mark.parametrize("name", sorted(RAVEL))
def test_ravel_multi_index_in_the_graph(name):
    check(RAVEL[name], V)
    no_break()


@pytest.mark.parametrize("fn", [lambda v: np.ravel_multi_index((v, v), (3, 4)) + 1,
                                lambda v: (np.ravel_multi_index((v * 9, v), (3, 4)), v)[1],
                                lambda v: np.ravel_multi_index((v * 1.0, v), (6, 6))])
def test_ravel_multi_index_errors_are_numpys(fn):
    assert type(check(fn, V)).__name__ == "Raised"
