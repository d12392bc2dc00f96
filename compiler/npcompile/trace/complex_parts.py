"""The parts of complex numbers: np.real and np.imag (and the .real and .imag of a lazy
array, which are the same rules), np.angle. Kept as NumPy keeps them: a complex array's
parts are views, so a write through np.real(z) lands in z; np.real of a real array is
that array itself, np.imag of one a read-only array of zeros; a NumPy scalar's parts are
new scalars."""
import numpy as np

from ..graph.node import Ref
from .. import np_base as _nb
from .operands import as_lazy
from .view_rules import pure_view


def _part(attr):
    def rule(tracer, fn, val):
        lz = as_lazy(tracer, val)
        if attr == "real" and lz.dtype.kind != "c":
            return lz
        if lz._scalar:      # scalars are values, not memory: a step making a new scalar
            dt = getattr(_nb.zeros((), lz.dtype), attr).dtype
            return tracer.make(fn, (Ref(0),), None, (lz._n,), dt, (), attr, scalar=True)
        if lz.dtype.kind == "c":
            # a view step: handed back, NumPy's strided view of the array; read by a
            # kernel, the part's elementwise op there (fusion/partition.py)
            return pure_view(tracer, lz, fn, (), None, attr)
        # np.imag of a real array: zeros that refuse writes, like NumPy's
        return np.broadcast_to(np.zeros_like(lz, shape=()), lz.shape)
    return rule


def angle(tracer, fn, z, deg=False):
    """As NumPy computes it: arctan2 of the parts (of 0 and z for a real z), times
    180/pi in degrees. The ufuncs' own promotion gives NumPy's dtypes (float16 for int8)."""
    x = as_lazy(tracer, z)
    a = np.arctan2(x.imag, x.real) if x.dtype.kind == "c" else np.arctan2(0, x)
    return a * (180 / np.pi) if deg else a


TABLE = {np.real: _part("real"), np.imag: _part("imag"), np.angle: angle}
