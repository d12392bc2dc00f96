"""What the rules share that needs no lazy array: the refusal a rule raises (the call
then runs in NumPy, a graph break), the Python and NumPy scalar types taken as
constants, and tiny prototypes that let NumPy itself decide dtypes."""
import numpy as np

from .. import np_base as _nb
from ..dtypes import NUMPY2, dtype_key  # noqa: F401 (the rules read NUMPY2 here)

_protos = {}


def proto(dtype, zero_d):
    """An empty (or 0-d) array of a dtype: calling NumPy on it costs nothing and gives
    the result dtype NumPy would give for the real operands."""
    key = (dtype_key(dtype), zero_d)
    p = _protos.get(key)
    if p is None:
        p = _nb.zeros((), dtype) if zero_d else _nb.empty((0,), dtype)
        _protos[key] = p
    return p


class Unsupported(Exception):
    """Raised by a rule that cannot trace this call: it runs eagerly (a graph break)."""

    def __init__(self, kind, reason):
        super().__init__(reason)
        self.kind = kind
        self.reason = reason


SCALAR_TYPES = (bool, int, float, complex, np.generic)
