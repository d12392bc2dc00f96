"""Random programs over the lazy selections (trace/masked_select.py: np.unique,
np.flatnonzero, np.nonzero, np.where(m)) and what follows them (arithmetic, reductions,
sizes, indexing with them, writes through them, loops, containers), jitted with and
without the path choice and the loop compiler, three calls each, against eager NumPy:
values, dtypes, shapes, Python types and raised errors. The grammar fuzzer (tests/fuzz)
draws none of these functions; a held-out program found a bug among them."""
import random
import warnings

import numpy as np
import pytest

import npcompile
from conftest import DEVICE

FORMS = ["u = np.unique(x)", "u = np.flatnonzero(x > 0)", "u = np.nonzero(x.ravel())[0]",
         "u = np.where(x.ravel() < 0)[0]", "u = np.unique(np.round(x * 2))"]
USES = ["return u", "return u * 2 + 1", "return u.size, u.sum()", "return (u, u.shape[0])",
        "return u.max() if u.size else 0",
        "return x.ravel()[u] if u.dtype.kind == 'i' else u",
        "v = u + 1\n    return v, v.mean() if v.size else 0.0",
        "return np.sort(u)", "return [u, u]", "return len(u)",
        "for k in range(2):\n        u = u * 2\n    return u",
        "w = x.ravel().copy()\n    w[u[u < w.size]] = 0 if u.dtype.kind in 'iu' else w[0]\n"
        "    return w",
        # a selection of a selection by a mask made from itself (sigma clipping)
        "v = u[u > u.mean()] if u.size else u\n    return v, v.size",
        "for k in range(2):\n        u = u[u != u.max()] if u.size else u\n    return u"]
DTYPES = ["float64", "float32", "int64", "int16", "uint8", "bool"]


def _input(r):
    shape = r.choice([(0,), (1,), (7,), (3, 4), (40,)])
    dt = r.choice(DTYPES)
    x = np.random.default_rng(r.randrange(10 ** 6)).normal(size=shape) * 3
    if dt == "bool":
        return x > 0
    if dt[0] in "iu":
        return np.round(x).astype(dt)
    x = x.astype(dt)
    if x.size and r.random() < 0.3:
        x.flat[r.randrange(x.size)] = np.nan
    if x.size and r.random() < 0.3:
        x.flat[r.randrange(x.size)] = -0.0
    return x


def _same(a, b):
    if isinstance(b, (tuple, list)):
        return type(a) is type(b) and len(a) == len(b) and all(map(_same, a, b))
    if isinstance(b, np.ndarray):
        a = a.get() if isinstance(a, npcompile.DeviceArray) else a
        return isinstance(a, np.ndarray) and a.dtype == b.dtype and a.shape == b.shape and \
            np.array_equal(a, b, equal_nan=True)
    if isinstance(a, npcompile.DeviceArray):
        a = a.get()[()]
    return (type(a) is type(b) or DEVICE == "cuda") and (a == b or (a != a and b != b))


@pytest.mark.parametrize("seed", range(60))
def test_a_random_program_over_a_lazy_selection(seed):
    r = random.Random(seed)
    src = f"def f(x):\n    {r.choice(FORMS)}\n    {r.choice(USES)}\n"
    ns = {"np": np}
    exec(src, ns)
    f = ns["f"]
    x = _input(r)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            exp, err = f(x.copy()), None
        except Exception as e:  # noqa: BLE001 - NumPy's error is the expected one
            exp, err = None, type(e)
        jf = npcompile.jit(f, device=DEVICE, choose=r.random() < 0.5, loops=r.random() < 0.5)
        for _ in range(3):
            if err is not None:
                with pytest.raises(err):
                    jf(x.copy())
            else:
                got = jf(x.copy())
                assert _same(got, exp), (src, x.dtype, x.shape, got, exp)
