"""The differential fuzzer: random programs (programs.py) run four times through
npcompile.jit (a first call, a replayed call, a recompile at other shapes, the first
arguments again) and compared with eager NumPy on values, dtypes, shapes, scalar
types, raised exceptions and the arguments written in place.

    python tests/fuzz/fuzz.py --seconds 600      a campaign (make fuzz MINUTES=10):
                                                 programs run in child processes, so
                                                 that a crash or a hang is caught and
                                                 its seed reported
    python tests/fuzz/fuzz.py --seeds 0 300      these seeds, in this process

A failing seed prints its program; `--seeds S S+1` runs it again."""
import argparse
import ast
import copy
import os
import subprocess
import sys
import time
import types
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from programs import Program  # noqa: E402

# float results may differ from NumPy's in their last bits (compensated or pairwise
# sums, libm against NumPy's SIMD functions): relative to the result's magnitude
RTOL = {"e": 2e-3, "f": 2e-5, "d": 1e-9, "F": 2e-5, "D": 1e-9}


# NumPy 1.x's deprecated answer to == and != of shapes that do not broadcast (a Python
# bool, with a DeprecationWarning): npcompile raises NumPy 2's ValueError instead
_DEPRECATED = "elementwise comparison failed"


def run(fn, args):
    """(result or the exception raised, whether NumPy 1.x's deprecated comparison ran)."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        with np.errstate(all="ignore"):
            try:
                out = fn(*args)
            except Exception as e:   # noqa: BLE001 - NumPy's error is part of the answer
                out = e
    return out, any(_DEPRECATED in str(w.message) for w in seen)


def differ(exp, got, where="result", rtol=None):
    """Why got is not exp (None when it is)."""
    if isinstance(exp, Exception) or isinstance(got, Exception):
        if isinstance(exp, Exception) and isinstance(got, Exception) and type(exp) is type(got):
            return None
        return f"{where}: NumPy gives {exp!r:.120}, npcompile {got!r:.120}"
    if type(exp) is not type(got):
        return f"{where}: type {type(exp).__name__} against {type(got).__name__}"
    if isinstance(exp, tuple):
        for i, (e, g) in enumerate(zip(exp, got)):
            why = differ(e, g, f"{where}[{i}]", rtol)
            if why:
                return why
        return None
    if not isinstance(exp, (np.ndarray, np.generic)):
        return None if exp == got or (exp != exp and got != got) else f"{where}: {exp!r} != {got!r}"
    if exp.dtype != got.dtype or np.shape(exp) != np.shape(got):
        return f"{where}: {exp.dtype}{np.shape(exp)} against {got.dtype}{np.shape(got)}"
    e, g = np.asarray(exp), np.asarray(got)
    if e.dtype.kind == "c":     # each part as a float array (NaN and inf per part)
        return differ(np.ascontiguousarray(e.real), np.ascontiguousarray(g.real),
                      where + ".real", rtol) or \
            differ(np.ascontiguousarray(e.imag), np.ascontiguousarray(g.imag), where + ".imag", rtol)
    if e.dtype.kind not in "fc":
        return None if np.array_equal(e, g) else f"{where}: values differ ({_first(e, g)})"
    finite = np.isfinite(e)
    same_special = np.array_equal(np.isnan(e), np.isnan(g)) and \
        np.array_equal(np.where(np.isinf(e), e, 0), np.where(np.isinf(g), g, 0))
    if not same_special:
        return f"{where}: NaN or inf differ ({_first(e, g)})"
    if not finite.any():
        return None
    rtol = max(RTOL.get(e.dtype.char, 1e-9), rtol or 0)
    scale = float(np.max(np.abs(e[finite])))
    if np.all(np.abs(e[finite] - g[finite]) <= rtol * (np.abs(e[finite]) + 1e-3 * scale)):
        return None
    return f"{where}: values differ ({_first(e, g)})"


def outcome(fn, args):
    """What a call leaves: (its result, the arguments after it) as one tuple, the
    arguments copied first (a conditioning check compares both: a last-bit difference
    written in place, `b -= fmod(t, a) / floor(b)`, is as much rounding as one returned)."""
    moved = copy.deepcopy(args)
    out, _ = run(fn, moved)
    return (out, tuple(moved))


def closer_to_wide(fn, args, exp, got):
    """Is npcompile's result as close to the program run on float64 inputs (float16 and
    float32 ones widened) as NumPy's own? A remainder or a cancellation amplifies a
    last-bit difference of one float32 step (arctan2 by libm against NumPy's loop) into
    the fourth digit; where npcompile's answer is no further from the exact one than
    NumPy's, the difference is rounding, not a wrong number. exp and got: outcome()s."""
    wide = [a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)
            if isinstance(a, np.ndarray) and a.dtype.kind in "fc" and a.dtype.itemsize < 8 +
            8 * (a.dtype.kind == "c") else a for a in args]
    if all(w is a for w, a in zip(wide, args)):
        return False
    exact = outcome(fn, wide)
    triples = _leaves(exp, got, exact, "fc")
    if not triples:
        return False
    for e, g, x in triples:
        e, g, x = (np.asarray(v, dtype=np.complex128) for v in (e, g, x))
        if e.shape != x.shape:
            return False
        ok = np.isfinite(e) & np.isfinite(x)
        scale = float(np.max(np.abs(x[ok]))) if ok.any() else 0.0
        if np.any(np.abs(g[ok] - x[ok]) > 2 * np.abs(e[ok] - x[ok]) + 1e-6 * scale):
            return False
    return True


# units in the last place that inputs and function results are moved by: 1 (a libm's
# correctly rounded exp against NumPy's, one below: sin of that float32 1e33 is another
# number, and 4 ulps away it is a third) and 4
NUDGES = (1, 4)


def within_conditioning(fn, args, exp, got, source=None):
    """Does NumPy's own outcome move as far as npcompile's differs from it, when the
    float inputs, or the float results of its functions, move by a few units in the last
    place? Then the program is that ill-conditioned
    (fmod(2**40, arctan2(...)): a last-bit difference of arctan2, libm's against NumPy's,
    is the fourth digit; a complex power of exponent -6e84: the sign of its infinite
    parts is the sign of a cosine of 1e84 radians; np.tanh of a large int32 written
    back into it: -1 or 0 by tanh's last bit), and the difference is rounding. exp and
    got: outcome()s; their integer parts count too."""
    nudged = []
    for n in NUDGES:
        for toward in (np.inf, -np.inf):
            moved = [_ulps(a, toward, n) if isinstance(a, np.ndarray) and a.dtype.kind == "f"
                     else a for a in args]
            if any(m is not a for m, a in zip(moved, args)):
                nudged.append(outcome(fn, moved))
            # and each NumPy function's float result moved (exp's last bit, then the
            # sine of 3.7e108 it made: a difference no input moves when the exp's
            # argument is a floor division's whole number), and each operator's
            # (`a ** b` of int8 and uint64: NumPy's float64 power one below libm's)
            # (apart: nudged together, tanh(19)'s 1.0 and a power's 1.0 moved alike and
            # their difference stayed 0 where npcompile's libm tanh gives -1.1e-16)
            nudged.append(outcome(_nudged_program(fn, None, toward, n), args))
            if source is not None:
                nudged.append(outcome(_nudged_program(fn, source, toward, n, False), args))
    runs = [_leaves(exp, got, r, "biufc") for r in nudged]    # per run: (NumPy's, ours, moved)
    if any(leaves is None for leaves in runs):
        return False
    for k, (e, g, _) in enumerate(runs[0]):
        e, g = np.asarray(e, np.complex128), np.asarray(g, np.complex128)
        spread = np.zeros(e.shape)
        for leaves in runs:
            x = np.asarray(leaves[k][2], np.complex128)
            if x.shape != e.shape:
                return False
            with np.errstate(invalid="ignore"):
                d = np.abs(x - e)
            moved = ~((x == e) | (np.isnan(x) & np.isnan(e)))
            spread = np.maximum(spread, np.where(np.isnan(d) & moved, np.inf, np.nan_to_num(d)))
        with np.errstate(invalid="ignore"):
            off = np.abs(g - e)
        off = np.where((g == e) | (np.isnan(g) & np.isnan(e)), 0.0,
                       np.where(np.isnan(off), np.inf, off))
        with np.errstate(over="ignore"):
            if np.any(off > 4 * spread):
                return False
    return True


class _OperatorsNudged(ast.NodeTransformer):
    """Each binary operator's result through __npc_nudged__ (a program's source)."""

    def visit_BinOp(self, node):
        self.generic_visit(node)
        return ast.copy_location(ast.Call(ast.Name("__npc_nudged__", ast.Load()), [node], []),
                                 node)


def _nudged_program(fn, source, toward, n, functions=True):
    """fn with NumPy's functions' float results (where `functions`), and (given its
    source) its operators' float array results, moved n ulps toward +-inf."""
    g = dict(fn.__globals__, np=_Nudged(toward, n) if functions else np)
    if source is None:
        return types.FunctionType(fn.__code__, g)
    tree = ast.fix_missing_locations(_OperatorsNudged().visit(ast.parse(source)))
    g["__npc_nudged__"] = lambda r: _nudge_value(r, toward, n)
    exec(compile(tree, "<nudged>", "exec"), g)
    return g[fn.__name__]


def _nudge_value(r, toward, n):
    if isinstance(r, (np.ndarray, np.generic)) and r.dtype.kind in "fc":
        with np.errstate(all="ignore"):
            if r.dtype.kind == "c":
                return (_ulps(r.real, toward, n) + 1j * _ulps(r.imag, toward, n)
                        ).astype(r.dtype, copy=False)
            return _ulps(r, toward, n)
    return r


class _Nudged:
    """numpy, but each function's float results are moved by n units in the last place
    of their dtype, toward +inf or -inf."""

    def __init__(self, toward, n):
        self._npc_nudge = (toward, n)   # not a NumPy name (np.sign must stay NumPy's)

    def __getattr__(self, name):
        got = getattr(np, name)
        if isinstance(got, type) or not callable(got):
            return got
        toward, n = self._npc_nudge

        def nudged(*args, **kwargs):
            return _nudge_value(got(*args, **kwargs), toward, n)
        return nudged


def _ulps(a, toward, n):
    """a moved n units in the last place toward +-inf (a libm's last bit against
    NumPy's moves a result by one: inputs moved by a few make NumPy's own move that far)."""
    for _ in range(n):
        a = np.nextafter(a, a.dtype.type(toward))
    return a


def _leaves(exp, got, other, kinds):
    """[(NumPy's, npcompile's, the other run's) per leaf of an outcome whose dtype kind
    is in `kinds`], or None where the other run's outcome is not of the same structure."""
    if isinstance(exp, tuple):
        if not isinstance(other, tuple) or len(other) != len(exp) or \
                not isinstance(got, tuple) or len(got) != len(exp):
            return None
        out = []
        for e, g, x in zip(exp, got, other):
            more = _leaves(e, g, x, kinds)
            if more is None:
                return None
            out += more
        return out
    if isinstance(exp, (np.ndarray, np.generic, bool, int, float, complex)) and \
            not isinstance(exp, Exception) and np.asarray(exp).dtype.kind in kinds:
        if isinstance(exact := other, (Exception, tuple)) or isinstance(got, Exception):
            return None
        if np.shape(got) != np.shape(exp):
            return None
        return [(exp, got, exact)]
    return []


def _first(e, g):
    bad = np.argwhere(~((e == g) | (np.isnan(e) & np.isnan(g))).reshape(np.shape(e)))
    if not len(bad):
        return "?"
    i = tuple(bad[0])
    return f"at {i}: {e[i]!r} against {g[i]!r}"


def check(seed):
    """None, or why this seed's program differs from NumPy."""
    import npcompile
    p = Program(seed)
    ns = {"np": np}
    exec(compile(p.source, f"<fuzz {seed}>", "exec"), ns)
    fn = ns["f"]
    jitted = npcompile.jit(fn, choose=False)
    # a float64 result computed through float32 or float16 steps (np.sin of int16 is
    # float32) carries their last-bit differences
    low = any(np.dtype(d).itemsize < 8 and np.dtype(d).kind in "biuf" for d in p.dtypes) or \
        "float32" in p.source or "int8" in p.source
    rtol = 2e-5 if low else None
    for call, scale in enumerate((0, 0, 1, 0)):
        args = p.inputs(scale)
        a_np, a_jit = copy.deepcopy(args), copy.deepcopy(args)
        (exp, deprecated), (got, _) = run(fn, a_np), run(jitted, a_jit)
        if deprecated:
            return None
        why = differ(exp, got, rtol=rtol)
        for k, (e, g) in enumerate(zip(a_np, a_jit)):
            why = why or differ(e, g, f"argument {'abc'[k]} after the call", rtol)
        if why and ("values differ" in why or "NaN or inf differ" in why):
            both = (exp, tuple(a_np)), (got, tuple(a_jit))
            if closer_to_wide(fn, args, *both) or \
                    within_conditioning(fn, args, *both, source=p.source):
                why = None
        if why:
            names = ("first call", "replayed call", "recompile", "first arguments again")
            return f"{names[call]}: {why}"
    return None


def report(seed, why):
    p = Program(seed)
    shapes = ", ".join(f"{n}: {d}{s}" for n, d, s in zip("abc", p.dtypes, p.shapes))
    return f"seed {seed} ({shapes})\n{p.source}  -> {why}\n"


def run_seeds(first, last):
    bad = 0
    for seed in range(first, last):
        why = check(seed)
        if why:
            bad += 1
            print(report(seed, why), flush=True)
    return bad


def campaign(seconds, start, chunk=25, timeout=300):
    """Chunks of seeds in child processes until the time is up: a child that crashes or
    hangs is rerun seed by seed, to name the one."""
    t_end, seed, failures = time.time() + seconds, start, []
    while time.time() < t_end:
        r = _child(seed, seed + chunk, timeout)
        if r is None:
            for s in range(seed, seed + chunk):
                one = _child(s, s + 1, 60)
                if one is None and not _numpy_finishes(s, 60):
                    # NumPy's own power of an array by an object array of huge ints
                    # never ends: the program's, not npcompile's
                    print(f"seed {s}: skipped, eager NumPy itself does not finish it "
                          f"in 60 s\n{Program(s).source}", flush=True)
                elif one is None:
                    failures.append(f"seed {s}: crashed or hung\n{Program(s).source}")
                    print(failures[-1], flush=True)
                elif one:
                    failures.append(one)
        elif r:
            failures.append(r)
            print(r, flush=True)
        seed += chunk
    print(f"fuzz: {seed - start} programs from seed {start}, {len(failures)} failing")
    return len(failures)


def numpy_only(seed):
    """The seed's program run as check() runs it in eager NumPy alone."""
    p = Program(seed)
    ns = {"np": np}
    exec(compile(p.source, f"<fuzz {seed}>", "exec"), ns)
    for scale in (0, 0, 1, 0):
        run(ns["f"], p.inputs(scale))


def _numpy_finishes(seed, timeout):
    try:
        r = subprocess.run([sys.executable, __file__, "--numpy-only", str(seed)],
                           capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return False
    return r.returncode == 0


def _child(first, last, timeout):
    """The failures' report ('' when none), or None when the child crashed or hung."""
    try:
        r = subprocess.run([sys.executable, __file__, "--seeds", str(first), str(last)],
                           capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    if r.returncode not in (0, 1):
        return None
    return r.stdout.strip()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", nargs=2, type=int, metavar=("FIRST", "LAST"))
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--start", type=int, default=int(time.time()) % 10_000_000)
    ap.add_argument("--numpy-only", type=int, metavar="SEED", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.numpy_only is not None:
        return numpy_only(a.numpy_only)
    if a.seeds:
        sys.exit(1 if run_seeds(*a.seeds) else 0)
    sys.exit(1 if campaign(a.seconds, a.start) else 0)


if __name__ == "__main__":
    main()
