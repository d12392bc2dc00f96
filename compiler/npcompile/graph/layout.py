"""Layouts without memory: a stand-in array of a shape and dtype in C order, one element
of real memory behind it. NumPy's own view operations applied to it tell a view's shape,
strides and offset (the tracer's views, the fusion's index maps) without reading data."""
import numpy as np

from .. import np_base as _nb
from ..dtypes import dtype_key
from ..memo import Memo


_fakes = Memo()


def fake_of(dtype, shape):
    """A metadata-only array of this shape in C order: view operations on it tell the
    shape and strides of a view without touching memory. Nothing writes or reads its
    elements, so one per (dtype, shape) serves every storage (as_strided costs more than
    a recorded op)."""
    key = (dtype_key(dtype), shape)
    fake = _fakes.get(key)
    if fake is None:
        buf = _nb.empty(1, dtype)
        strides = []
        acc = dtype.itemsize
        for d in reversed(shape):
            strides.append(acc)
            acc *= max(d, 1)
        fake = np.lib.stride_tricks.as_strided(buf, shape=shape,
                                               strides=tuple(reversed(strides)))
        _fakes[key] = fake
    return fake
