"""Reductions over every axis but the last (X.sum(axis=0), X.mean(0), np.max(A, axis=0)) on
the CPU, a block of columns at a time.

NumPy adds such a sum row after row onto the kept row: each column's terms in sequence,
the columns side by side. Written per output element, the kernel walked one column
down the rows (a stride per term, one element of each cache line used): X.sum(axis=0)
ran 0.48x NumPy. Here the kernel's dimension is taken W columns at a time: per block,
an accumulator per column, the rows in the reduction's order (codegen/numpy_sum_order.py
for float sums), and the columns of a row innermost, where they vectorize. Each
column's terms still meet in NumPy's order: only the columns are interleaved."""
from ..fusion.expr import top_reduces
from .cpp_ops import ctype
from .cpp_sums import counts, numpy_ordered, sum_order
from .numpy_sum_order import RUNTIME_CHECK, NotNumPyOrder

# columns per block at most: a block's accumulators (4 KiB of doubles) stay in L1 while
# the rows stream through in memory order, as NumPy adds them; blocks of 32 (registers)
# read a row 256 bytes at a time, 7 strided passes over a 200-column matrix, 1.6x slower
W = 512

_OPS = ("sum", "prod", "min", "max", "any", "all")


def build(em):
    """Emit kernel em.k in column blocks where every reduction it computes reduces all
    axes but the last of its operand; False (nothing emitted) where it does not apply."""
    k = em.k
    if len(k.shape) != 1 or k.split_dim != 0 or not isinstance(k.shape[0], int) or k.shape[0] < 8:
        return False
    tops = top_reduces(k.roots)
    if not tops or not all(_column(em, e) for e in tops) or \
            any(_encloses(r, set(), ("scan",)) for r in k.roots):
        return False
    k.columns = True    # its calls must take many columns each (cpu_step_program.py)
    em.open_loop(f"for (i64 i0b = begin; i0b < end; i0b += {W})", [])
    em.cur.emit(f"const i64 i0e = i0b + {W} < end ? i0b + {W} : end;")
    done = set()
    for e in tops:
        if id(e) not in done:
            done.add(id(e))
            _block(em, e)
    idx = ("i0",)
    em.open_loop("for (i64 i0 = i0b; i0 < i0e; ++i0)", ["i0"])
    for out, root in zip(k.outputs, k.roots):
        v = em.value(root, idx)
        em.cur.emit(f"out{out.index}[{em.out_offset(idx)}] = ({ctype(out.dtype)}){v};")
    em.close_loop()
    em.close_loop()
    em._flag_frame()
    return True


def _column(em, e):
    if e.kind != "reduce" or e.op not in _OPS or e.dtype.kind == "c" or \
            e.attrs.get("keepdims") or tuple(e.shape) != tuple(em.k.shape):
        return False
    x = e.inputs[0]
    nd = len(x.shape)
    if nd < 2 or tuple(e.attrs["axes"]) != tuple(range(nd - 1)) or _encloses(x, set()):
        return False
    if numpy_ordered(e):
        try:
            order = sum_order(em, e)
        except NotNumPyOrder:
            return False    # (the usual path reports it)
        if order.run:       # NumPy sums the reduced axes pairwise in memory: not columns
            return False
    return True


def _encloses(e, seen, kinds=("reduce", "scan")):
    if id(e) in seen:
        return False
    seen.add(id(e))
    return e.kind in kinds or any(_encloses(x, seen, kinds) for x in e.inputs)


def _block(em, e):
    """Reduction e for the block's columns: acc<rid>[i0 - i0b], found by em.value where
    a root reads e at i0 (its memo, in the block's scope)."""
    x = e.inputs[0]
    rid, xidx, rvars = em.reduce_index(e, ("i0",))
    var = dict(zip(e.attrs["axes"], rvars))
    T = ctype(e.dtype)
    count = counts(e)
    AT = "i64" if count else T
    if count:
        x = x.inputs[0]
    loops = [var[a] for a in e.attrs["axes"]]
    ordered = numpy_ordered(e)
    if ordered:     # NumPy's order of the rows: its axes in memory order
        order = sum_order(em, e)
        for cond in order.checks:
            em.root.lines.insert(0, f"{RUNTIME_CHECK} |= !{cond};")
            em.k.need.add(("flag",))
        loops = [var[a] for a in order.outer]
    acc = f"acc{rid}"
    init = "0" if ordered else em._init(e.op, e.dtype)
    em.cur.emit(f"{AT} {acc}[{W}];")
    em.cur.emit(f"for (i64 l = 0; l < i0e - i0b; ++l) {acc}[l] = {init};")
    for v, n in loops:
        em.open_loop(f"for (i64 {v} = 0; {v} < {n}; ++{v})", [v])
    # the lane counts from 0 (and i0 follows it): a loop over i0 itself, with the slot
    # acc[i0 - i0b], stayed scalar (vaddsd where vaddpd do)
    em.open_loop(f"for (i64 l{rid} = 0; l{rid} < i0e - i0b; ++l{rid})", ["i0"])
    em.cur.emit(f"const i64 i0 = i0b + l{rid};")
    val = em.value(x, tuple(xidx))
    lane = f"{acc}[l{rid}]"
    em.cur.emit(f"{lane} += {val};" if ordered else
                em._combine(e.op, lane, val, rid, rvars, x.dtype))
    slot = f"{acc}[i0 - i0b]"
    em.close_loop()
    for _ in loops:
        em.close_loop()
    got = slot if AT == T else f"(({T}){slot})"
    em.cur.memo[em.memo_key(e, ("i0",))] = got
