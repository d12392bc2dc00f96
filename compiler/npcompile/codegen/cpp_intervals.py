"""Index-set splitting of a kernel's loops at the seams of its concatenations.

`u[1:-1] = u[1:-1] + r * (u[2:] - 2 * u[1:-1] + u[:-2])` is one kernel writing all of
u: a concatenation of u[:1], the computed interior and u[-1:] along the axis. Rendered
as one loop, every element selects its piece, and the computed piece's reads are
clamped into range (codegen/cpp.py _piece) so that they stay in memory where they are
discarded. The clamps and the select keep the loop from vectorizing: a 1-D heat step of
50,000 elements took 94 us, slower than NumPy's five passes.

Where a piece's index along an axis is the loop variable itself, the loop over that
axis is cut where the pieces meet, and each part is rendered with its piece alone: no
select, no clamp, and the edges only move data. A render records the seams it met
(Emitter.cuts); this file turns them into intervals per loop variable, and the render
that follows writes one loop per interval (Emitter.intervals)."""
import re

_LOOP_VAR = re.compile(r"i\d+")
# body copies a kernel may be rendered into (the product of its intervals per axis),
# and lines of C++ they may come to: each copy is compiled, and compile time counts
MAX_COPIES = 9
MAX_LINES = 1500
# intervals one axis may be cut into
MAX_PER_AXIS = 5


def is_loop_var(index):
    """Whether an index text is a kernel loop variable, unmoved (`i1`, not `(i1 - 1)`)."""
    return _LOOP_VAR.fullmatch(index) is not None


def plan(cuts, ndim, lines):
    """{loop variable: [interval, ...]} from {loop variable: {tuple of seams}}, or {}.
    With numbers only, the seams of every concatenation along the axis are merged and
    sorted; an interval is (lo, hi). With a run-time size among them (a symbolic kernel)
    their order is unknown, so an axis is cut only where all its concatenations have the
    same seams, and an interval is ("piece", seams, k): the k-th of them. Inner axes are
    cut first (they are the ones that vectorize), up to MAX_COPIES copies in all, and
    MAX_LINES lines for a body of `lines` lines."""
    out, copies = {}, 1
    most = min(MAX_COPIES, MAX_LINES // max(lines, 1))
    for d in range(ndim - 1, -1, -1):
        var = f"i{d}"
        seams = cuts.get(var)
        if not seams:
            continue
        if all(type(c) is int for t in seams for c in t):
            points = sorted({c for t in seams for c in t if c > 0})
            bounds = [0] + points + [None]
            ivs = [(bounds[k], bounds[k + 1]) for k in range(len(bounds) - 1)]
        elif len(seams) == 1:
            (t,) = seams
            ivs = [("piece", t, k) for k in range(len(t) + 1)]
        else:
            continue
        if len(ivs) < 2 or len(ivs) > MAX_PER_AXIS or copies * len(ivs) > most:
            continue
        copies *= len(ivs)
        out[var] = ivs
    return out


def bounds(iv):
    """An interval's (lo, hi) as C++ text or numbers (hi None: the axis' end)."""
    if iv[0] != "piece":
        return iv
    _, seams, k = iv
    return (seams[k - 1] if k else 0), (seams[k] if k < len(seams) else None)


def header(var, iv, lo, hi):
    """The loop over var's part iv of [lo, hi) (lo, hi: the whole loop's bounds)."""
    a, b = bounds(iv)
    start = lo if a == 0 else (a if lo == "0" else f"({lo} > {a} ? {lo} : {a})")
    if b is None:
        stop = hi
    elif hi.isdigit() and type(b) is int:
        stop = min(int(hi), b)
    else:
        stop = f"({hi} < {b} ? {hi} : {b})"
    return f"for (i64 {var} = {start}; {var} < {stop}; ++{var})"


def piece(iv, starts, ends):
    """The piece of a concatenation (its seams: starts and ends) that interval iv lies
    in, or None."""
    if iv[0] == "piece":
        _, seams, k = iv
        return k if tuple(ends[:-1]) == seams else None
    a, b = iv
    for k, (s, e) in enumerate(zip(starts, ends)):
        if type(s) is int and type(e) is int and s <= a and (b is not None and b <= e):
            return k
        if type(s) is int and s <= a and b is None and k == len(starts) - 1:
            return k
    return None
