"""np.linalg functions beyond library_rules' decompositions, as steps of the graph:
np.linalg.slogdet, np.linalg.matrix_rank, np.linalg.lstsq. NumPy's own function runs as
the step (same values, same LinAlgError at run time).

np.linalg.lstsq's residuals are empty where a is not of full column rank, or has no more
rows than columns: with more rows, their shape depends on the values (the rank), and
the call is NumPy's, a well-reported break. With no more rows than columns every result
has a known shape."""
import numpy as np

from .library_rules import _shape, _square_stack, declare
from .operands import Unsupported


def _slogdet(b):
    batch = _square_stack(b)
    return [batch, batch]


def _matrix_rank(b):
    """A stack of matrices: one rank each. Of fewer than 2 dimensions NumPy returns a
    Python int (not a NumPy scalar): its call, eagerly."""
    shape = _shape(b, "A")
    if len(shape) < 2:
        raise Unsupported("unsupported", "np.linalg.matrix_rank of a vector returns a "
                                         "Python int")
    return shape[:-2]


def _lstsq(b):
    a, rhs = _shape(b, "a"), _shape(b, "b")
    if len(a) != 2 or len(rhs) not in (1, 2) or rhs[0] != a[0]:
        raise Unsupported("error", "np.linalg.lstsq: incompatible dimensions")
    m, n = a
    if m > n:
        raise Unsupported("data_shape", "np.linalg.lstsq with more rows than columns: its "
                                        "residuals are empty or not as the rank comes out "
                                        "(np.linalg.solve(a.T @ a, a.T @ b), or "
                                        "np.linalg.pinv(a) @ b, keeps a full-rank problem "
                                        "in the graph)")
    return [(n,) + rhs[1:], (0,), (), (min(m, n),)]


SHAPES = {np.linalg.slogdet: _slogdet, np.linalg.matrix_rank: _matrix_rank,
          np.linalg.lstsq: _lstsq}
TABLE = declare(SHAPES)
