"""Batched 3x3 frames: Gram-Schmidt on the first two columns of each matrix, the third axis
by np.cross, the rotation applied to vectors and the orthonormality error checked, all by
np.einsum over the batch. No loop."""
import numpy as np

NAME = "einsum_batched"
LOOPS = {}
N = {"small": 5000, "medium": 60_000}


def make_inputs(size, loop_scale=1):
    n = N[size]
    return (np.random.default_rng(42).standard_normal((n, 3, 3)),
            np.random.default_rng(43).standard_normal((n, 3)))


def run(M, v):
    """Batched rotations: orthonormalise via Gram-Schmidt on 3x3 batches, rotate vectors."""
    a1, a2 = M[:, :, 0], M[:, :, 1]
    e1 = a1 / np.linalg.norm(a1, axis=1, keepdims=True)
    u2 = a2 - np.einsum('ni,ni->n', e1, a2)[:, None] * e1
    e2 = u2 / np.linalg.norm(u2, axis=1, keepdims=True)
    e3 = np.cross(e1, e2)
    Rm = np.stack([e1, e2, e3], axis=2)
    rotated = np.einsum('nij,nj->ni', Rm, v)
    gram = np.einsum('nki,nkj->nij', Rm, Rm)
    err = np.abs(gram - np.eye(3)).max()
    return rotated, err, np.einsum('ii', gram[0])
