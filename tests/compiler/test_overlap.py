"""trace/overlap.overlaps: False only where two arrays are known to share no element."""
import numpy as np
from numpy.lib.stride_tricks import as_strided

from npcompile.trace.overlap import overlaps


def test_interleaved_columns_do_not_overlap():
    u = np.zeros((6, 5))
    assert np.may_share_memory(u[:, 1], u[:, 2])       # what the bounds test says
    assert not overlaps(u[:, 1], u[:, 2])
    assert not overlaps(u[1:, 2], u[:-1, 1])
    assert not overlaps(u[::2], u[1::2])


def test_shared_elements_overlap():
    u = np.zeros((6, 5))
    assert overlaps(u[1:, 2], u[:-1, 2])
    assert overlaps(u, u.T)
    assert overlaps(u[2], u[:, 3])
    assert not overlaps(u, np.zeros(3))


def test_a_problem_too_hard_to_solve_counts_as_overlapping():
    base = np.zeros(10_000)
    a = as_strided(base, shape=(40, 40, 40), strides=(8 * 7, 8 * 11, 8 * 13))
    b = as_strided(base[1:], shape=(40, 40, 40), strides=(8 * 17, 8 * 19, 8 * 23))
    assert overlaps(a, b)
