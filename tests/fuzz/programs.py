"""Random NumPy programs from a small grammar, for the differential fuzzer (fuzz.py).

A program is Python source of one function `f(a, b, c)` over up to three arrays: ufuncs,
operators, reductions with axis/keepdims/dtype/ddof, views with negative steps, casts,
in-place and masked writes, Python numbers (ints up to and past int64's range, NaN, inf,
-0.0), and Python numbers the graph computes (counts, sizes, whole-array comparisons).
Its inputs have shapes that broadcast against a base shape, in every dtype the tracer
meets (float16, complex64 and complex128, every unsigned width, byte-swapped), with edge
values mixed in. The same seed always gives the same program and inputs."""
import random
import zlib

import numpy as np

DTYPES = ["float64", "float32", "int64", "int32", "int8", "uint8", "bool", "complex128",
          "float16", ">f8", "<i2", "complex64", "uint16", "uint32", "uint64"]
BASES = [(), (0,), (1,), (5,), (3, 4), (2, 3, 4), (4, 1)]
UNARY = ["np.sin", "np.exp", "np.abs", "np.sqrt", "np.negative", "np.floor", "np.log1p",
         "np.tanh", "np.square", "np.sign", "np.isnan", "np.cos", "np.positive"]
BINARY_UF = ["np.maximum", "np.minimum", "np.arctan2", "np.hypot", "np.add", "np.multiply",
             "np.fmod", "np.logical_and"]
OPS = ["+", "-", "*", "/", "//", "%", "**", "<", "==", ">=", "&", "|", "^"]
REDUCE = ["sum", "mean", "max", "min", "std", "var", "prod", "argmax", "any", "all"]
CONSTS = ["2", "-3", "0.5", "-0.0", "1e300", "np.nan", "np.inf", "2**40", "True", "7",
          "2**53 + 1", "2**63 - 1", "2**70", "-2**63"]
# library calls and gathers ({x}: an operand)
LIBRARY = ["np.sort({x}, axis=-1)", "np.cumsum({x})", "np.argsort({x}, axis=0)",
           "np.take({x}, [0, -1, 1])", "{x}.ravel()[[0, 2, -1]]", "np.flip({x})",
           "np.roll({x}, 2)", "np.diff({x}, axis=-1)", "np.median({x})",
           "np.clip({x}, -1, 1)", "np.round({x} * 3.3, 1)", "np.concatenate([{x}, {x}])"]


# Python numbers the graph computes ({x}, {y}: operands): counts (a Python int under
# NumPy 1.x), sizes of selections, comparisons of whole arrays (Python bools), and
# Python's arithmetic on them
PYNUMBERS = ["np.count_nonzero({x})", "np.count_nonzero({x} > 0) * 3 - 1",
             "np.count_nonzero({x}) / 2", "{y} / (np.count_nonzero({x} > 0) + 1)",
             "{x}[{x} > 0].size", "np.array_equal({x}, {y})", "np.allclose({x}, {y})",
             "np.count_nonzero({x} < 0) > np.count_nonzero({x} > 0)",
             "{y} * np.count_nonzero({x})", "abs(np.count_nonzero({x}) - {x}.size)",
             "np.count_nonzero({x}) / np.count_nonzero({y})", "np.sqrt(np.count_nonzero({x}))"]


class Program:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        r = self.rng
        self.base = r.choice(BASES)
        self.dtypes = [r.choice(DTYPES) for _ in range(3)]
        self.shapes = [self._broadcastable(self.base) for _ in range(3)]
        self.names = ["a", "b", "c"]
        self.lines = []
        self.temps = []
        n = r.randint(1, 4)
        for i in range(n):
            self._statement(i)
        outs = self.temps[-2:] if self.temps else ["a"]
        self.lines.append(f"return ({', '.join(outs)},)")
        self.source = "def f(a, b, c):\n" + "".join(f"    {ln}\n" for ln in self.lines)

    def _broadcastable(self, base):
        r = self.rng
        shape = list(base)
        if shape and r.random() < 0.3:
            shape = shape[r.randint(0, len(shape) - 1):]     # trailing dims
        shape = [1 if (d and r.random() < 0.15) else d for d in shape]
        return tuple(shape)

    def _operand(self):
        r = self.rng
        pool = self.names + self.temps
        x = r.choice(pool)
        roll = r.random()
        if roll < 0.1:
            return r.choice(CONSTS)
        if roll < 0.2:
            return f"{x}[::-1]"
        if roll < 0.25:
            return f"{x}.T"
        if roll < 0.3:
            return f"{x}.astype(np.{r.choice(['float32', 'int32', 'float64', 'int8', 'bool'])})"
        return x

    def _expr(self, depth):
        r = self.rng
        if depth <= 0:
            return self._operand()
        k = r.random()
        if k < 0.3:
            left, op, right = self._expr(depth - 1), r.choice(OPS), self._expr(depth - 1)
            if op == "**" and ((left in CONSTS and right in CONSTS) or "2**70" in right):
                # Python's own power of two numbers, before NumPy sees anything:
                # `2**40 ** 2**40` is a tower Python computes for ever (seed 5928315);
                # and NumPy 1.x's power by 2**70 or by an array it makes of Python ints
                # (`c ** (2**70 * c)`), object arrays of Python ints raised to them,
                # never ends either (seeds 301669, 5972006)
                op = "*"
            return f"({left} {op} {right})"
        if k < 0.5:
            return f"{r.choice(UNARY)}({self._expr(depth - 1)})"
        if k < 0.65:
            return f"{r.choice(BINARY_UF)}({self._expr(depth - 1)}, {self._expr(depth - 1)})"
        if k < 0.8:
            red = r.choice(REDUCE)
            kw = []
            if r.random() < 0.6:
                kw.append(f"axis={r.choice([0, -1, None])}")
            if red not in ("argmax",) and r.random() < 0.3:
                kw.append("keepdims=True")
            if red in ("std", "var") and r.random() < 0.3:
                kw.append("ddof=1")
            if red in ("sum", "prod", "mean", "std", "var") and r.random() < 0.2:
                kw.append(f"dtype=np.{r.choice(['float32', 'int64', 'float64', 'int8'])}")
            return f"np.{red}({self._expr(depth - 1)}{', ' if kw else ''}{', '.join(kw)})"
        if k < 0.9:
            return f"np.where({self._expr(depth - 1)} > 0, {self._expr(depth - 1)}, {self._expr(depth - 1)})"
        return self._operand()

    def _statement(self, i):
        r = self.rng
        k = r.random()
        if k < 0.12:
            self._loop(i)
            return
        if k < 0.2:
            name = f"t{i}"
            x = r.choice(self.names + self.temps)
            if r.random() < 0.3:
                y = r.choice(self.names + self.temps)
                self.lines.append(f"{name} = {r.choice(PYNUMBERS).format(x=x, y=y)}")
            else:
                self.lines.append(f"{name} = {r.choice(LIBRARY).format(x=x)}")
            self.temps.append(name)
            return
        if k < 0.27:        # aliasing: a view of an argument written from another
            target = r.choice(self.names)
            self.lines.append(r.choice([
                f"{target}[1:] {r.choice(['+', '-', '*'])}= {target}[:-1]",
                f"{target}[::2] = {self._expr(1)}",
                f"np.add({target}, {self._expr(1)}, out={target})",
                f"{target}[...] = {target}[::-1]",
            ]))
            return
        if k < 0.75 or not self.temps:
            name = f"t{i}"
            self.lines.append(f"{name} = {self._expr(r.randint(1, 3))}")
            self.temps.append(name)
        elif k < 0.88:
            target = r.choice(self.names)
            self.lines.append(f"{target} {r.choice(['+', '-', '*'])}= {self._expr(r.randint(0, 2))}")
        else:
            target = r.choice(self.names)
            self.lines.append(f"{target}[{target} > 0] = {r.choice(CONSTS[:4])}")

    def _loop(self, i):
        """A Python loop over range(n) (n at least 8: the runner's minimum, so its body
        compiles once): a carried array, an in-place update, or an index by the loop
        variable, the forms api/loop_rewrite.py takes over."""
        r = self.rng
        n = r.choice([8, 9, 13])
        target = r.choice(self.names)
        form = r.randint(0, 3)
        if form == 0:        # a carried value rebound each iteration
            name = f"t{i}"
            self.lines.append(f"{name} = {target} * 1")
            self.lines.append(f"for _ in range({n}):")
            self.lines.append(f"    {name} = {name} * 0.5 + {self._expr(1).replace(name, target)}")
            self.temps.append(name)
        elif form == 1:      # an in-place update of an argument
            self.lines.append(f"for _ in range({n}):")
            self.lines.append(f"    {target} {r.choice(['+', '-', '*'])}= {r.choice(CONSTS[:4])}")
        elif form == 2:      # a row per iteration, read by the loop variable
            name = f"t{i}"
            self.lines.append(f"{name} = np.zeros(({n},) + np.shape({target}))")
            self.lines.append(f"for k in range({n}):")
            self.lines.append(f"    {name}[k] = {target} * k + {r.choice(CONSTS[:4])}")
            self.temps.append(name)
        else:                # a scalar accumulator over the loop
            name = f"t{i}"
            self.lines.append(f"{name} = 0.0")
            self.lines.append(f"for k in range({n}):")
            self.lines.append(f"    {name} += np.sum({target}) * k")
            self.temps.append(name)

    def inputs(self, scale=0):
        """The arguments (fresh arrays); scale > 0 grows each dimension above 1 (a
        recompile with the same program)."""
        rng = np.random.default_rng(zlib.crc32(self.source.encode()) + scale)
        out = []
        for dt, shape in zip(self.dtypes, self.shapes):
            shape = tuple(d + scale if d > 1 else d for d in shape)
            out.append(_values(rng, np.dtype(dt), shape))
        return out


def _values(rng, dt, shape):
    n = int(np.prod(shape))
    if dt.kind == "b":
        v = rng.random(n) < 0.5
    elif dt.kind in "iu":
        info = np.iinfo(dt)
        lo, hi = max(info.min, -100), min(info.max, 100)
        v = rng.integers(lo, hi + 1, n).astype(dt)
        if n and rng.random() < 0.3:     # (uint64's max is no int64: chosen in dt)
            v[rng.integers(0, n)] = rng.choice(np.array([info.min, info.max, 0], dtype=dt))
    else:
        v = rng.standard_normal(n) * rng.choice([1.0, 100.0])
        if n and rng.random() < 0.3:
            v[rng.integers(0, n)] = rng.choice([np.nan, np.inf, -np.inf, -0.0, 0.0])
        if dt.kind == "c":
            v = v + 1j * rng.standard_normal(n)
    return np.asarray(v).astype(dt).reshape(shape)
