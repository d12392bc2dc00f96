"""The C++ of a float or complex sum in NumPy's order (codegen/numpy_sum_order.py says
which order): Emitter._reduce hands its float and complex sums here."""
import numpy as np

from .cpp_complex import PART
from .cpp_ops import ctype, pairwise_text
from .numpy_sum_order import (RUNTIME_CHECK, NotNumPyOrder, c_strides, order_of,
                              split_units, times)


def counts(e):
    """A float sum of booleans (np.mean(x <= 1)): a count, integers that add exactly in
    any order."""
    x = e.inputs[0]
    return e.op == "sum" and e.dtype.kind == "f" and x.kind == "cast" and \
        x.inputs[0].dtype.kind == "b"


def numpy_ordered(e):
    """A float or complex sum: its terms are added in NumPy's order (render), NumPy's
    bits."""
    return e.kind == "reduce" and e.op == "sum" and e.dtype.kind in "fc" and not counts(e)


def sum_order(em, e):
    """The Order of float sum e in this kernel (codegen/numpy_sum_order.py), from its
    loads' strides as the plan knows them and as this call has them."""
    return order_of(e, lambda load: _strides(em, load), lambda load: _strides_now(em, load))


def render(em, e, idx):
    """The C++ name holding float sum `e` at `idx`. An accumulator of the result's own
    type (NumPy's: a float32 sum adds in float32), the outer reduced axes as loops that
    add one term, or one run's sum, at a time; the run as a lambda of its flat index,
    summed by npc_pairwise_<T> whole or in NumPy's pieces. In a split kernel
    (render_split_kernel) a full sum is one unit's sum per chunk, then their combine."""
    split = em.split.get(id(e))
    if split is not None and split[0] == "final":
        return _combine_units(em, e, idx, split)
    x = e.inputs[0]
    order = sum_order(em, e)
    rid, xidx, rvars = em.reduce_index(e, idx)
    var = dict(zip(e.attrs["axes"], rvars))
    T = ctype(e.dtype)
    acc = f"acc{rid}"
    for cond in order.checks:    # the layout the order assumes, this call's strides
        em.root.lines.insert(0, f"{RUNTIME_CHECK} |= !{cond};")
        em.k.need.add(("flag",))
    saved = em.cur
    em.cur = em._home(idx) if split is None else em.cur   # a unit: in the chunk loop
    parts = _PARTS if e.dtype.kind == "c" else (("", ""),)   # a complex sum: two sums
    P = PART.get(T, T)
    em.cur.emit(" ".join(f"{P} {acc}{p} = 0;" for p, _ in parts))
    for a in order.outer:
        v, n = var[a]
        em.open_loop(f"for (i64 {v} = 0; {v} < {n}; ++{v})", [v])
    if order.run:
        _run_sum(em, x, order, var, xidx, rid, T, acc, split and _unit(e, split, rid, em))
    else:   # the innermost axis is kept: every term is added to the accumulator
        val = em.value(x, tuple(xidx))
        em.cur.emit(" ".join(f"{acc}{p} += {val}{sel};" for p, sel in parts))
    for _ in order.outer:
        em.close_loop()
    if len(parts) > 1:
        name = em.fresh()
        em.cur.emit(f"const {T} {name} = {T}({acc}_re, {acc}_im);")
        acc = name
    em.cur = saved
    return acc


_PARTS = (("_re", ".re"), ("_im", ".im"))


def _unit(e, split, rid, em):
    """(first term, count) of chunk c's unit of a split full sum, as C++."""
    _, c, chunks, _ = split
    starts, how = split_units(e, chunks)
    if how == "chain":   # pieces of equal size, the last one shorter
        piece, n = starts[1] - starts[0], starts[-1]
        return f"{c} * {piece}", f"({n} - {c} * {piece} < {piece} ? {n} - {c} * {piece} : {piece})"
    em.cur.emit(f"static const i64 st{rid}[] = {{{', '.join(str(s) for s in starts)}}};")
    return f"st{rid}[{c}]", f"st{rid}[{c} + 1] - st{rid}[{c}]"


def _combine_units(em, e, idx, split):
    """The units' sums met as NumPy meets them: one after another onto 0, or as the
    pairwise tree they are subtrees of, added to 0."""
    _, _, chunks, part = split
    starts, how = split_units(e, chunks)
    T = ctype(e.dtype)
    acc = em.fresh("acc")
    saved = em.cur
    em.cur = em._home(idx)
    if how == "chain":
        c = em.fresh("c")
        em.cur.emit(f"{T} {acc} = 0;")
        em.cur.emit(f"for (i64 {c} = 0; {c} < {chunks}; ++{c}) {acc} += {part}[{c}];")
    else:
        tree = pairwise_text([f"{part}[{i}]" for i in range(len(starts) - 1)])
        em.cur.emit(f"const {T} {acc} = ({T})0 + {tree};")
    em.cur = saved
    return acc


def _run_sum(em, x, order, var, xidx, rid, T, acc, unit=None):
    """acc += the run's pairwise sum (NumPy's pieces, each added to acc in turn; or
    the one unit of a split sum). The terms come from a lambda of (o, c). Where the
    run's sizes are constants, c is its flat index (the divisions by constants that
    find the axes fold away on contiguous data); else c is the index along its last
    axis and o the flat index over the others (npc_pairwise's ROWS: no division per
    term by a size known only at run time)."""
    nd = len(x.shape)
    o, q = f"r{rid}_{nd}", f"r{rid}_{nd + 1}"   # r<rid>_<k> names: the emitter scopes them
    *rows, last = order.run
    by_rows = bool(rows) and (any(type(var[a][1]) is not int for a in order.run) or
                              not _flat_loads(x, em))
    if by_rows:
        c, m = var[last]
        n = times(_flat_size(rows, var), m)
        flat_axes, flat, names = rows, o, [o, c]
    else:
        c = q
        n = m = _flat_size(order.run, var)
        flat_axes, flat, names = order.run, q, [o, q]
    f = f"f{rid}"
    em.open_loop(f"auto {f} = [&](const i64 {o}, const i64 {c}) -> {T}", names)
    _axes_from_flat(em, flat, flat_axes, var, names)
    em.cur.emit(f"(void){o}; (void){c};")
    em.cur.emit(f"return {em.value(x, tuple(xidx))};")
    em.close_loop()
    em.cur.emit(";")
    rows = "true" if by_rows else "false"
    if T in PART:   # complex: each part's sum comes back through a reference
        em.k.need.add(("helper", "cpairwise", T, PART[T]))

        def add(start, count):
            return (f"{{ {PART[T]} re, im; npc_cpairwise_{T}<{rows}>({f}, {start}, {count}, "
                    f"{m}, re, im); {acc}_re += re; {acc}_im += im; }}")
    else:
        em.k.need.add(("helper", "pairwise", T))

        def add(start, count):
            return f"{acc} += npc_pairwise_{T}<{rows}>({f}, {start}, {count}, {m});"
    piece = order.piece
    if unit is not None:
        em.cur.emit(add(*unit))
    elif piece is None or (type(n) is int and n <= piece):
        em.cur.emit(add(0, n))
    else:
        p = f"p{rid}"
        em.cur.emit(f"for (i64 {p} = 0; {p} < {n}; {p} += {piece}) "
                    + add(p, f"{n} - {p} < {piece} ? {n} - {p} : {piece}"))


def _flat_loads(x, em):
    """x reads only C-contiguous arrays of its own shape, element for element: a flat
    index q addresses them all as q, and the divisions that find the axes fold away.
    (Else the walk by rows is cheaper: a shifted or broadcast read would divide at
    every term.)"""
    stack, seen = [x], set()
    while stack:
        e = stack.pop()
        if id(e) in seen:
            continue
        seen.add(id(e))
        if e.kind == "load":
            if e.shape != x.shape or not em.buffer_of(e).contiguous:
                return False
        elif e.kind in ("pw", "cast"):
            if any(i.shape != x.shape and i.kind != "const" for i in e.inputs):
                return False
            stack.extend(e.inputs)
        elif e.kind != "const":
            return False
    return True


def _flat_size(axes, var):
    n = 1
    for a in axes:
        n = times(n, var[a][1])
    return n


def _axes_from_flat(em, flat, axes, var, names):
    """const i64 lines giving each axis's index from a flat index over them (C order);
    their names join the lambda's scope."""
    below, lines = 1, []
    for a in reversed(axes):
        v, k = var[a]
        q = flat if below == 1 else f"{flat} / ({below})"
        lines.append(f"const i64 {v} = {q if a == axes[0] else f'({q}) % {k}'};")
        names.append(v)
        below = times(below, k)
    em.cur.names.update(names)
    for line in reversed(lines):
        em.cur.emit(line)


def _strides(em, load):
    """A load's element strides: C order, constants known when the plan was made, or
    the run-time P[] slots."""
    buf = em.buffer_of(load)
    if buf.contiguous:
        if em.buffer_of.example_of(load.op)[0] is None and not _c_ancestry(load.op):
            # written by one of our kernels, in C order; NumPy's array of the same
            # value follows its operands' order, which a transposed one changes
            raise NotNumPyOrder("NumPy's order of this float sum is not reproduced: "
                                "a value computed from a transposed or reversed array")
        return c_strides(buf.shape)
    if buf.strides is not None:
        return buf.strides
    return tuple(f"P[{buf.param + d}]" for d in range(len(buf.shape)))


def _strides_now(em, load):
    """This call's element strides of a load (its example's; C order for an array one
    of our kernels writes, with no example)."""
    example, _ = em.buffer_of.example_of(load.op)
    if example is None or any(s % example.itemsize for s in example.strides):
        return _strides(em, load)
    return tuple(s // example.itemsize for s in example.strides)


_REORDERING = frozenset({"transpose", "swapaxes", "moveaxis"})


def _c_ancestry(node, limit=20000):
    """Every array `node` was computed from is in C axis order, through no transposing
    view: NumPy's temporaries of it are in C order too. (A reversed axis does not change
    that: NumPy allocates a result with positive strides in its operands' axis order, by
    the size of their strides, whatever their signs: `np.abs(p[1:4] - a)` of a reflecting
    np.pad is C-ordered, under NumPy 1.24 and 2.4 alike. A value past `limit` graph nodes
    back is taken as not known: False.)"""
    stack, seen = [node], set()
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        if len(seen) > limit:
            return False
        if n.is_leaf:
            v = n.value
            if isinstance(v, np.ndarray) and not _c_ordered_array(v):
                return False
            continue
        if n.label in _REORDERING:
            return False
        stack.extend(n.inputs)
    return True


def _c_ordered_array(v):
    """Strides falling in size from the outermost axis, of either sign (size-1 axes
    aside): the axis order NumPy's temporaries of it take."""
    st = [abs(s) for n, s in zip(v.shape, v.strides) if n != 1]
    return all(s > 0 for s in st) and all(a > b for a, b in zip(st, st[1:]))
