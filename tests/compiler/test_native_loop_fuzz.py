"""Random scalar loop nests over integers of every width, bools and floats (compiled by
codegen/scalar_nest.py), against eager NumPy: values, dtypes, scalar types, errors. The
operands include each type's extremes, so that wraparound, division by zero, shifts past
the width and Python ints that do not fit a narrow type all happen; where the nest
stops the Python loop runs, and the answer must be NumPy's either way."""
import importlib.util
import os
import random

import numpy as np
import pytest

import npcompile
from conftest import check
from test_native_loop import NATIVE, ran_native

pytestmark = NATIVE
INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOATS = ["float32", "float64"]
INT_OPS = ["+", "-", "*", "//", "%", "&", "|", "^", "<<", ">>"]
FLOAT_OPS = ["+", "-", "*", "/", "//", "%"]
CMPS = ["<", "<=", ">", ">=", "==", "!="]


def program(r):
    """The source of a random nest f(a, b, out, k) and its argument dtypes: integer
    programs (every width, bools, the bitwise operators) or float ones (ints mixed in)."""
    floats = r.random() < 0.3
    resets = r.random() < 0.3       # y = a Python number, then maybe a NumPy one
    ops = FLOAT_OPS if floats else INT_OPS
    consts = [0, 1, 2, 3, 7, -1, 200, 70000] + ([0.5, -2.0] if floats else [])

    def expr(depth):
        if depth == 0 or r.random() < 0.3:
            return r.choice(["a[i]", "b[i]", "k", "a[i]", "b[i]", str(r.choice(consts))])
        pick = r.random()
        if pick < 0.85:
            return f"({expr(depth - 1)} {r.choice(ops)} {expr(depth - 1)})"
        if pick < 0.9:      # of one type: both sides read one array
            v = r.choice(["a", "b"])
            return f"{r.choice(['min', 'max'])}({v}[i], {v}[i - 1])"
        if pick < 0.95 and not floats:
            return f"(~{expr(depth - 1)})"
        return f"(-{expr(depth - 1)})"
    lines = ["def f(a, b, out, k):",
             f"    s = {r.choice([0, 0, 0, 300, -1, True, 2.5 if floats else 0])}",
             "    for i in range(a.shape[0]):",
             f"        x = {expr(2)}",
             f"        y = {r.choice(consts + [0, 0.0]) if resets else 'x'}",  # a reset?
             f"        if {expr(0)} {r.choice(CMPS)} {expr(0)}:",
             f"            y = {expr(1) if resets else 'x'}",
             f"        if x {r.choice(CMPS)} {expr(0)}:",
             f"            out[i] = {expr(1)}",
             "        else:",
             f"            out[i] = {r.choice(['min', 'max'])}(x, {'y' if resets else expr(1)}, "
             f"{expr(0)})",
             f"        if {expr(1)} {r.choice(CMPS)} {expr(1)}:",
             f"            s += {expr(1)}",
             "    return out, s, x"]
    pool = FLOATS + INTS if floats else INTS + ["bool"]
    return "\n".join(lines), [r.choice(pool) for _ in range(3)]


def values(r, dtype, n):
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return np.array([r.random() < 0.5 for _ in range(n)])
    if dt.kind == "f":
        pool = [0.0, -0.0, 1.5, -2.25, 3.0, 1e30, float("nan"), 255.0]
    else:
        info = np.iinfo(dt)
        pool = [0, 1, 2, 3, 5, -1, -7, int(info.max), int(info.min), int(info.max) - 1]
        pool = [v for v in pool if info.min <= v <= info.max]
    small = [v for v in pool if abs(v) < 10]
    return np.array([r.choice(small if r.random() < 0.9 else pool) for _ in range(n)], dt)


def load(src, path):
    """f of the source, from a file (npcompile.jit reads the function's source)."""
    path.write_text("import numpy as np\n\n\n" + src + "\n")
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.f


@pytest.mark.parametrize("seed", range(int(os.environ.get("NPC_NEST_FUZZ", 60))))
def test_random_nests(seed, tmp_path):
    r = random.Random(seed)
    native = 0
    for case in range(5):
        src, (da, db, do) = program(r)
        f = load(src, tmp_path / f"nest_{seed}_{case}.py")
        n = 6
        a, b, out = values(r, da, n), values(r, db, n), np.zeros(n, do)
        k = r.choice([0, 1, 3, 9, 64, -2, 300])
        try:
            check(f, a, b, out, k)
        except (AssertionError, pytest.fail.Exception) as e:
            raise AssertionError(f"{src}\n{a!r} {b!r} {out!r} {k!r}") from e
        native += ran_native()
        npcompile.reset()
