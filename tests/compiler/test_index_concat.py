"""np.r_[...] and np.c_[...] of traced arrays (trace/index_concat.py): a traced
concatenation, not a value read; NumPy's values, dtypes and shapes; ranges and string
directives stay NumPy's."""
import numpy as np
import pytest

import npcompile
from conftest import check

U = np.linspace(0.0, 1.0, 7)

CASES = {
    "shifted residual": lambda u: np.r_[u[1:], 0.0] - 2 * u + np.r_[0.0, u[:-1]],
    "numbers around": lambda u: np.r_[0, u, 1] * 2,
    "two arrays": lambda u: np.r_[u, u * 2],
    "columns": lambda u: np.c_[u, u * 2] + 1,
    "design matrix": lambda u: np.c_[np.ones(7), u, u ** 2] @ np.ones(3),
    "float32 and a Python float": lambda u: np.r_[u.astype(np.float32), 1.5],
    "int32 and a Python int": lambda u: np.r_[u.astype(np.int32), 7],
    "a NumPy scalar": lambda u: np.r_[np.float32(1), u],
    "2-d pieces": lambda u: np.c_[u.reshape(7, 1), np.zeros((7, 2))].sum(axis=1),
    "a range (NumPy's)": lambda u: np.r_[0:3, u],
    "a directive (NumPy's)": lambda u: np.r_["0,2", u, u],
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_numpy(name):
    check(CASES[name], U)


@pytest.mark.parametrize("name", [n for n in sorted(CASES) if "NumPy's" not in n])
def test_no_value_read_and_replay(name):
    """The concatenation is traced: no graph break, and no value read that would keep
    later calls from replaying."""
    fn = CASES[name]
    e = npcompile.explain(fn)(U)
    assert e.graph_break_count == 0 and e.graph_count == 1, e
    assert "reads array values" not in str(e), str(e)


def test_outside_a_trace_it_is_numpys():
    assert np.array_equal(np.r_[1, 2, np.array([3, 4])], [1, 2, 3, 4])
    assert np.c_[[1, 2], [3, 4]].shape == (2, 2)
    assert np.array_equal(np.r_[0:4:2], [0, 2])
    assert type(np.r_).__name__ == "RClass"


def test_mismatched_pieces_raise_numpys_error():
    check(lambda u: np.c_[u, np.ones(3)], U)
