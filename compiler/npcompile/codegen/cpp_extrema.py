"""min, max, argmin and argmax reductions on the CPU in loops the compiler vectorizes.

NumPy's answer is sequential: the first extreme (a NaN wins at its first place; of -0.0
and 0.0 the one met first). Written that way, with a branch per element, the loop runs
one element at a time: np.max was 0.6x NumPy's SIMD loop, np.argmin 0.2x. So:

- pass 1 finds the extreme as an integer: a float's bits, made to order as integers
  (negative floats' magnitude bits flipped), whose largest is the largest float, and
  whether any element is NaN. Integer max and an OR of flags vectorize;
- argmin/argmax: pass 2 walks to the first element equal to it (or the first NaN) and
  stops there;
- min/max: the value itself, except where a NaN or a zero (whose sign NumPy takes from
  the first one met) decides: then the sequential loop as NumPy writes it, rarely.

Integers need no key (their own order) and have no NaN."""
import numpy as np

from .cpp_ops import ctype, linear_index, literal


def applies(op, x):
    return op in ("min", "max", "argmin", "argmax") and (
        (x.dtype.kind == "f" and x.dtype.itemsize in (4, 8)) or x.dtype.kind in "iu")


def render(em, e, op, x, rid, xidx, rvars, bounds, combine, init):
    """The reduction's result name, emitted at em.cur (the accumulator's home).
    combine/init: the sequential loop's statement and start value (Emitter._combine)."""
    xT = ctype(x.dtype)
    big = op in ("max", "argmax")
    floating = x.dtype.kind == "f"
    if floating:
        bits = x.dtype.itemsize * 8
        KT = "i64" if bits == 64 else "i32"
        mask = "0x7FFFFFFFFFFFFFFFLL" if bits == 64 else "0x7FFFFFFF"
        lo, hi = ("(-0x7FFFFFFFFFFFFFFFLL - 1)", "0x7FFFFFFFFFFFFFFFLL") if bits == 64 else \
            ("(-0x7FFFFFFF - 1)", "0x7FFFFFFF")
    else:
        KT = xT
        info = np.iinfo(x.dtype)
        lo, hi = literal(info.min, x.dtype), literal(info.max, x.dtype)
    key, nan, target = f"k{rid}", f"nan{rid}", f"t{rid}"
    cmp = ">" if big else "<"
    em.cur.emit(f"{KT} {key} = {lo if big else hi};" + (f" bool {nan} = false;" if floating else ""))
    _loops(em, rvars, bounds, [v for v, _ in rvars])
    val = em.value(x, tuple(xidx))
    if floating:
        b = em.fresh("b")
        em.cur.emit(f"{KT} {b} = __builtin_bit_cast({KT}, {val}); {b} ^= ({b} >> {bits - 1}) & {mask}; "
                    f"{nan} |= {val} != {val}; {key} = {b} {cmp} {key} ? {b} : {key};")
    else:
        em.cur.emit(f"{key} = {val} {cmp} {key} ? {val} : {key};")
    for _ in rvars:
        em.close_loop()
    if floating:
        em.cur.emit(f"const {xT} {target} = __builtin_bit_cast({xT}, ({KT})({key} ^ (({key} >> {bits - 1}) & {mask})));")
    else:
        em.cur.emit(f"const {xT} {target} = {key};")
    acc = f"acc{rid}"
    # the second walk over the same elements, with loop variables of its own
    rid2 = em.fresh("r")[1:]
    names = [f"r{rid2}_{v.rsplit('_', 1)[1]}" for v, _ in rvars]
    rename = dict(zip((v for v, _ in rvars), names))
    xidx2 = tuple(rename.get(s, s) for s in xidx)
    if op in ("argmin", "argmax"):
        em.cur.emit(f"i64 {acc} = 0;")
        _loops(em, rvars, bounds, names)
        v2 = em.value(x, xidx2)
        lin = linear_index(names, [n for _, n in rvars])
        hit = f"({nan} ? {v2} != {v2} : {v2} == {target})" if floating else f"{v2} == {target}"
        em.cur.emit(f"if ({hit}) {{ {acc} = {lin}; goto found{rid}; }}")
        for _ in rvars:
            em.close_loop()
        em.cur.emit(f"found{rid}:;")
        return acc
    em.cur.emit(f"{xT} {acc} = {target};")
    if not floating:
        return acc
    em.open_loop(f"if ({nan} || {target} == 0)", [])
    em.cur.emit(f"{acc} = {init};")
    _loops(em, rvars, bounds, names)
    v2 = em.value(x, xidx2)
    em.cur.emit(combine(acc, v2))
    for _ in rvars:
        em.close_loop()
    em.close_loop()
    return acc


def _loops(em, rvars, bounds, names):
    for (v, _), name in zip(rvars, names):
        lo, hi = bounds[v]
        em.open_loop(f"for (i64 {name} = {lo}; {name} < {hi}; ++{name})", [name])
