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


def solver(r):
    """The source of a random g(A, B, p, t): a small iterative solver, a while loop with
    a break, names of new arrays rebound and aliased (`v = w`), np.zeros/np.full, means,
    divmod, views of rows written through, a history list appended to."""
    upd = r.choice(["w = A @ v", "w = A[:, 0] * v + B[0]", "w = np.where(v > t, v, 0.5 * v) + B[1]",
                    "w = np.zeros(v.shape[0]) + v * 0.5 - A[1]"])
    lines = ["def g(A, B, p, t):",
             "    n = A.shape[0]",
             "    v = np.full(n, 1.0) + B[0]",
             "    it = 0",
             "    s = 0.0",
             "    hist = []",
             "    while it < 30:",
             f"        {upd}",
             # (bounded: where values grow past 1e154 a sum's order decides inf or not)
             f"        w /= {r.choice(['np.linalg.norm(w) + 1.0', 'np.abs(w).sum() + 2.0'])}",
             "        it += 1"]
    for _ in range(r.randint(1, 3)):
        pick = r.random()
        if pick < 0.25:
            lines.append(f"        if {r.choice(['np.abs(w - v).max() < 1e-3', 'np.isnan(w).any()', '(w > 10.0).all()', 'it > 25'])}:")
            lines.append("            v = w" if r.random() < 0.5 else "            s += 1.0")
            lines.append("            break")
        elif pick < 0.45:
            lines.append("        q, m = divmod(it * 7 + int(p[it % n]), n)")
            lines.append("        row = A[q % n]")
            lines.append(f"        row {r.choice(['+=', '-='])} 0.001 * w")
        elif pick < 0.65:
            lines.append(f"        s += {r.choice(['w.mean()', 'np.sum(w * v)', 'float(np.argmax(w))', 'np.sign(w[0])'])}")
        elif pick < 0.72:
            lines.append(f"        hist.append({r.choice(['np.linalg.norm(w)', 's', 'it * 2', 'w[0] > t'])})")
        elif pick < 0.8:
            lines.append("        z = np.zeros_like(v)")
            lines.append("        z[it % n] = s")
            lines.append("        s += z.sum()")
        else:
            lines.append("        u = w")
            lines.append("        s += u[0]")
    lines.append("        v = w")
    lines.append("    return A, v, s, it, hist")
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


def _load(src, tmp_path, seed, name="f"):
    path = os.path.join(tmp_path, f"slice_fuzz_{name}_{seed}.py")
    with open(path, "w") as fh:
        fh.write("import numpy as np\n\n\n" + src)
    spec = importlib.util.spec_from_file_location(f"slice_fuzz_{name}_{seed}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return getattr(mod, name)


@pytest.mark.parametrize("seed", range(40))
def test_random_slice_nests_match_numpy(seed, tmp_path):
    r = random.Random(seed)
    src = program(r)
    f = _load(src, str(tmp_path), seed)
    for n in (9, 2):
        check(f, *_data(r, n))


@pytest.mark.parametrize("seed", range(30))
def test_random_solver_nests_match_numpy(seed, tmp_path):
    r = random.Random(seed)
    g = _load(solver(r), str(tmp_path), seed, "g")
    for n in (6, 3):
        check(g, *_data(r, n))


def test_most_random_slice_nests_run_compiled(tmp_path):
    ran = 0
    for seed in range(40, 52):
        r = random.Random(seed)
        f = _load(program(r), str(tmp_path), seed)
        check(f, *_data(r, 9))
        ran += ran_native()
    assert ran >= 6
