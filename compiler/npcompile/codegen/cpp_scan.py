"""Scans in the C++ kernels (fusion/expr.py's scan: np.cumsum, np.cumprod, ufunc.accumulate).

Element i of a scan is its op (the ufunc's own rendering, cpp_ops.render) applied to
element i-1 and the input's element i, in order along the axis, as NumPy's accumulate loop
does: no reassociation, so the same bits. The kernel's loop nest visits the axis in order
within one call (backends/cpu.py never splits the calls along a scanned dimension).
Along the innermost dimension the running value is a register. Along an outer one it is
read back from the scan's own output, written one iteration of that loop earlier: the
inner loops stay independent (vectorized across the columns, as NumPy's row-by-row loop
is), and no accumulator per column is needed."""
import re

from . import cpp_ops
from .cpp_ops import ctype


def value(em, e, idx):
    """The C++ name of scan e's element idx, emitted into emitter em's loop nest."""
    a = e.attrs["axis"]
    x = e.inputs[0]
    v = em.value(x, _flat_index(em, e, x.shape, idx[0]) if e.attrs["flat"] else idx)
    T = ctype(e.dtype)
    first = f"{idx[a]} == 0"
    saved = em.cur
    em.cur = em._home(idx)
    name = em.fresh("s")
    if a == len(e.shape) - 1:
        acc = em.fresh("acc")
        _outside_loop_of(em.cur, idx[a]).emit(f"{T} {acc} = 0;")
        step = cpp_ops.render(e.op, [acc, v], e.dtype, e.dtype, em.k.need)
        em.cur.emit(f"{acc} = {first} ? {v} : {step};")
        em.cur.emit(f"const {T} {name} = {acc};{em._comment(e)}")
    else:
        # the previous element along the axis, from this kernel's output of the scan; at
        # the first the index is clamped (an element not yet written, never used): a
        # load that is always in bounds keeps the inner loop a plain vector loop
        out = next((b for b, r in zip(em.k.outputs, em.k.roots) if r is e), None)
        if out is None:
            raise RuntimeError("a scan along an outer axis outside the kernel that writes it")
        at = idx[:a] + (f"({idx[a]} > 0 ? {idx[a]} - 1 : 0)",) + idx[a + 1:]
        prev = f"out{out.index}[{em.out_offset(at)}]"
        step = cpp_ops.render(e.op, [prev, v], e.dtype, e.dtype, em.k.need)
        em.cur.emit(f"const {T} {name} = {first} ? {v} : {step};{em._comment(e)}")
    em.cur = saved
    return name


def _outside_loop_of(scope, index):
    """The scope just outside the loop that an index along the scan's axis follows (where
    the running value starts): the loop variable itself, or clamped and shifted where the
    scan is a piece of a concatenation (fusion/partition.py's _shares_scan_loop: the
    index then repeats the piece's first element before it and its last after it)."""
    loops = []
    sc = scope
    while sc is not None:
        if any(re.search(rf"\b{v}\b", index) for v in sc.names):
            loops.append(sc)
        sc = sc.parent
    if len(loops) != 1 or loops[0].parent is None:
        raise RuntimeError(f"a scan read at {index}, not along one loop")
    return loops[0].parent


def _flat_index(em, e, shape, i):
    """The index into `shape` of flat (C-order) element i: a flattened scan (axis=None)
    of a many-dimensional input walks its elements in order."""
    out, inner = [], 1
    for d in range(len(shape) - 1, -1, -1):
        n = em.extent(("scan", id(e), d), shape[d])
        # inner is a product of sizes given at run time in a kernel that serves several
        # sizes ("S0*S1"): in parentheses, or i / S0*S1 reads (i / S0) * S1 (np.cumsum of
        # a (3, 4, 5) array after a (2, 3, 4) one read past its input)
        q = i if inner == 1 else f"({i} / ({inner}))"
        out.append(q if d == 0 else f"({q} % {n})")
        inner = inner * n if type(inner) is int and type(n) is int else (
            n if inner == 1 else f"{inner}*{n}")
    return tuple(reversed(out))

