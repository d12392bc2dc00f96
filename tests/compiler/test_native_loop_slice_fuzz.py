"""Random loop nests of slice code (codegen/scalar_nest_vectors.py and its neighbours)
against eager NumPy: names bound to views and copies, tests of slices reduced at once,
np.where, argmax/argmin, np.sign, row swaps, np.diag, sums and means, new axes, stores
into slices that overlap what the right side reads. The data holds NaNs, infinities,
signed zeros and ties; indices come from the data. Where the nest stops (an error or a
warning NumPy would give) the Python loop runs, and the answer must be NumPy's either
way: values, dtypes, scalar types, errors and the arrays written in place."""
import importlib.util
import os
import random

import numpy as np
import pytest

from conftest import check
from test_native_loop import NATIVE, ran_native

pytestmark = NATIVE

# (expressions of a vector of length m - k, reading rows or columns at k)
VECTORS = ["A[k, k:]", "A[k:, k]", "x", "v", "B[k, k:]", "A[k:, k] * 2.0", "np.abs(x)",
           "np.where(x > 0.25, x, -1.0)", "np.sign(v)", "x[::-1]", "np.diag(A[k:, k:])"]
TESTS = ["(x > t).any()", "(v <= 0.0).all()", "np.isnan(x).any()", "np.any(np.isinf(v))",
         "np.count_nonzero(x != v) > 1", "(np.isfinite(x) & (x < t)).all()"]
SCALARS = ["x[0]", "v.sum()", "np.mean(x)", "np.argmax(x)", "x.argmin()", "np.sign(x[-1])",
           "np.linalg.norm(v)", "np.max(np.abs(v))", "np.sum(A[k:, k:] * 0.5)", "t"]


def program(r):
    """The source of a random f(A, B, p, t) over n x n float64 arrays."""
    def vec():
        return r.choice(VECTORS)

    def scal():
        return r.choice(SCALARS)
    lines = ["def f(A, B, p, t):",
             "    n = A.shape[0]",
             "    s = 0.0",
             "    c = 0",
             "    for k in range(n - 1):",
             "        x = A[k:, k]",
             f"        v = ({vec()}).copy()" if r.random() < 0.5 else "        v = A[k:, k].copy()"]
    for _ in range(r.randint(2, 5)):
        pick = r.random()
        if pick < 0.2:
            lines.append(f"        if {r.choice(TESTS)}:")
            lines.append(f"            s += {scal()}")
            lines.append("        else:")
            lines.append("            c += 1")
        elif pick < 0.35:
            lines.append(f"        v = v * {r.choice(['0.5', '-1.0', 't'])} + {vec()}")
        elif pick < 0.5:
            tgt = r.choice(["A[k:, k]", "B[k, k:]", "A[k, k:]", "x"])
            op = r.choice(["=", "+=", "-=", "*="])
            lines.append(f"        {tgt} {op} {vec()}")
        elif pick < 0.6:
            lines.append("        q = int(p[k]) % n")
            lines.append("        A[[k, q]] = A[[q, k]]")
        elif pick < 0.7:
            lines.append("        A[k + 1:, k + 1:] -= A[k + 1:, k, None] * B[None, k, k + 1:] * 0.01")
        elif pick < 0.8:
            lines.append(f"        s += {scal()}")
        elif pick < 0.9:
            lines.append(f"        c += np.count_nonzero({vec()} > t)")
        else:
            lines.append("        v[0] = np.copysign(s, x[0]) if s == s else 0.0")
    lines.append("    return A, B, s, c")
    return "\n".join(lines) + "\n"


def _data(r, n):
    rng = np.random.default_rng(r.randrange(1 << 30))
    A = rng.standard_normal((n, n))
    B = rng.standard_normal((n, n))
    specials = [np.nan, np.inf, -np.inf, -0.0, 0.0, 1.0, 1.0]
    for M in (A, B):
        for _ in range(r.randint(0, 4)):
            M[r.randrange(n), r.randrange(n)] = r.choice(specials)
    p = rng.integers(-n, 2 * n, n).astype(np.float64)
    return A, B, p, r.choice([0.0, 0.25, -0.5, np.nan])


def _load(src, tmp_path, seed):
    path = os.path.join(tmp_path, f"slice_fuzz_{seed}.py")
    with open(path, "w") as fh:
        fh.write("import numpy as np\n\n\n" + src)
    spec = importlib.util.spec_from_file_location(f"slice_fuzz_{seed}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.f


@pytest.mark.parametrize("seed", range(40))
def test_random_slice_nests_match_numpy(seed, tmp_path):
    r = random.Random(seed)
    src = program(r)
    f = _load(src, str(tmp_path), seed)
    for n in (9, 2):
        check(f, *_data(r, n))


def test_most_random_slice_nests_run_compiled(tmp_path):
    ran = 0
    for seed in range(40, 52):
        r = random.Random(seed)
        f = _load(program(r), str(tmp_path), seed)
        check(f, *_data(r, 9))
        ran += ran_native()
    assert ran >= 6
