"""Which graph nodes become kernels, which are computed inside another kernel, and
which run in NumPy between kernels; each decision is recorded with its reason.

Rules: pointwise producers are always inlined into their consumers (recomputed, never
written to memory); a reduction is inlined when its consumer reads each of its
elements once (same iteration space, e.g. argmin over a norm), else written once;
views of leaves are taken by NumPy (free) and read through strides; a view of a
computed array needs that array written first; outputs of the graph are written by the
kernel that computes them; kernels of the same iteration space that do not depend on
each other share one loop nest (several outputs)."""
import operator

import numpy as np

from ..graph import calls
from ..graph.node import Ref
from ..ops import COMPLEX_PARTS, VIEW_LABELS, reduces, returns_numpy_scalar
from .expr import KINDS, Expr, Lowering, scanned_axes

# The deepest expression a kernel inlines before writing the value out (see partition).
MAX_INLINE_DEPTH = 48


def _has_reduce(e, memo=None):
    memo = {} if memo is None else memo
    k = id(e)
    if k not in memo:
        memo[k] = e.kind == "reduce" or any(_has_reduce(x, memo) for x in e.inputs)
    return memo[k]


def _has_scan(e, memo):
    k = id(e)
    if k not in memo:
        memo[k] = e.kind == "scan" or any(_has_scan(x, memo) for x in e.inputs)
    return memo[k]


def _shares_scan_loop(consumer, node, e):
    """Can `consumer` compute `node` (expression e, which holds a scan) in its own loop
    nest? A scan's running value exists only in a loop that visits its axis in order: a
    reader of its elements one for one can, a reduction, a view or a broadcast cannot.
    A concatenation can where every scan runs along the innermost axis: it reads a piece
    at its index shifted, clamped to the piece's first element before it (where the
    running value starts again) and its last after it (values it discards), so the index
    still advances one element per iteration from the first (np.concatenate(([0.0],
    np.cumsum(dx))), a cumulative integral, stays one kernel)."""
    if consumer.fn is np.concatenate:
        last = len(node.shape) - 1
        return len(consumer.shape) == len(node.shape) and all(
            a == last for a in scanned_axes([e]))
    return (consumer.shape == node.shape and not reduces(consumer.fn) and
            consumer.label not in VIEW_LABELS)


def _read_by_numpy(node, consumers, lowerable):
    """A NumPy step (decided so far) reads node, or node is one: it lies in memory."""
    return lowerable.get(id(node)) is False or any(
        lowerable.get(id(c)) is False for c in consumers.get(id(node), ()))


def _reduces(consumer, node):
    """A reduction over `node` reads each of its elements once: it may compute it inline."""
    return reduces(consumer.fn) and consumer.inputs and consumer.inputs[0] is node


def _loads(e, out, seen=None):
    seen = set() if seen is None else seen
    if id(e) in seen:
        return out
    seen.add(id(e))
    if e.kind == "load":
        out.add(e.op)
    for x in e.inputs:
        _loads(x, out, seen)
    return out


class Plan:
    """steps: ("numpy", node) | ("kernel", roots[(node, expr)], shape); decisions: text."""

    def __init__(self):
        self.steps = []
        self.decisions = []
        self.kernel_of = {}   # node id -> kernel index (for the fused-graph picture)


def partition(leaves, pending, outputs, kinds=KINDS, scans=False, gathers=False,
              numpy_nodes=frozenset()):
    """The plan of a graph for a target whose kernels compute the dtype kinds `kinds`
    (and scans, where `scans`; integer-array reads, where `gathers`). The nodes whose
    ids are in `numpy_nodes` are NumPy steps (float sums whose order NumPy keeps to
    itself: backends/cpu.compile_program)."""
    plan = Plan()
    low = Lowering(kinds, scans, gathers)
    consumers = {}
    for n in pending:
        for i in n.inputs:
            consumers.setdefault(id(i), []).append(n)
    out_ids = {id(o) for o in outputs}
    loads = {}

    def load(n):
        e = loads.get(id(n))
        if e is None:
            e = loads[id(n)] = Expr("load", n, [], n.shape, n.dtype, node=n)
        return e

    # 1. what lowers at all (with loads as inputs)
    lowerable = {}
    moves = set()   # nodes that only move data (concatenations and views of them) of
    # arrays in memory or constants
    for n in pending:
        is_view = n.label in VIEW_LABELS and n.args and type(n.args[0]) is Ref
        # A view is free in NumPy (read through strides, its offset given at run time),
        # and the array it views is written anyway when it is computed. A view of a
        # concatenation (np.roll of np.roll, a flipped pad) is index arithmetic in its
        # reader instead: its pieces are read where they lie, nothing is written.
        numpy_view = is_view and (id(n) in out_ids or id(n.inputs[0]) not in moves)
        # the part of a complex array handed back is NumPy's view of it (it shares the
        # array's memory); read by kernels, it is the part's elementwise op
        numpy_view = numpy_view or (n.fn in COMPLEX_PARTS and id(n) in out_ids)
        lowerable[id(n)] = (not numpy_view) and id(n) not in numpy_nodes and \
            low.lower(n, [load(i) for i in n.inputs]) is not None
        if lowerable[id(n)] and (is_view or n.fn in (np.concatenate, calls.copy)) and all(
                i.is_leaf or not i.inputs or id(i) in moves or _read_by_numpy(i, consumers, lowerable)
                for i in n.inputs):
            moves.add(id(n))
        if not lowerable[id(n)]:
            plan.decisions.append(f"{n.label}: runs in NumPy" + (
                " (a view: no copy)" if is_view else
                " (a float sum in a memory order NumPy keeps to itself: its bits)"
                if id(n) in numpy_nodes else ""))

    # 2. what must be written to memory
    materialize = set(out_ids)
    cut = set()     # written because its expression grew too deep: readers load it
    has_reduce_memo = {}  # id(expr) -> contains a reduction (exprs live until the plan is made)
    has_scan_memo = {}    # id(expr) -> contains a scan
    depth = {}      # expression depth of each lowered node, counting inlined producers
    exprs = {}
    for n in pending:  # definitions, inlining what is not materialized
        if not lowerable[id(n)]:
            for i in n.inputs:
                if not i.is_leaf and lowerable.get(id(i)):
                    if id(i) not in materialize:
                        plan.decisions.append(f"{i.label}: written, {n.label} reads it in NumPy")
                    materialize.add(id(i))
            continue
        ins = [load(i) if (i.is_leaf or not lowerable.get(id(i)) or id(i) in materialize)
               else exprs[id(i)] for i in n.inputs]
        exprs[id(n)] = low.lower(n, ins)
        if exprs[id(n)] is None and n.label == "gather" and not n.inputs[0].is_leaf and \
                lowerable.get(id(n.inputs[0])):
            # a gather reads the array it indexes anywhere: that array is written
            # first (computed per gathered element, a reduction or a scan in it would
            # be recomputed or read out of order)
            plan.decisions.append(f"{n.inputs[0].label}: written, a gather reads it")
            materialize.add(id(n.inputs[0]))
            exprs[id(n)] = low.lower(n, [load(n.inputs[0])] + ins[1:])
        d = 1 + max((depth.get(id(i), 0) for i in n.inputs if id(i) not in materialize), default=0)
        depth[id(n)] = d
        if d >= MAX_INLINE_DEPTH and id(n) not in materialize:
            # a long chain (a loop accumulating into one value) would become one
            # expression thousands deep: every walk over it recursive, the C++ one
            # statement per op anyway. Written here, it starts a fresh expression.
            plan.decisions.append(f"{n.label}: written (an expression {d} ops deep)")
            materialize.add(id(n))
            cut.add(id(n))
        # a reduction read by a broadcasting consumer would be recomputed per element
        e = exprs[id(n)]
        if _has_reduce(e, has_reduce_memo):
            cons = consumers.get(id(n), [])
            if len(cons) > 1 or any(c.shape != n.shape and not _reduces(c, n) for c in cons):
                if id(n) not in materialize:
                    plan.decisions.append(f"{n.label}: written once (a reduction read "
                                          f"{'by several consumers' if len(cons) > 1 else 'with broadcasting'})")
                materialize.add(id(n))
        # a scan's running value exists only in the loop nest that runs along its axis:
        # readers of its elements there (and concatenations: _shares_scan_loop) compute
        # from it (a scan along the innermost axis is computed again in another such
        # kernel, as a pointwise op is); any other reader loads it, written once. A scan
        # along an outer axis is always written: its loop reads the previous row back
        # (codegen/cpp_scan.py), and other kernels load it (_from_memory).
        if _has_scan(e, has_scan_memo) and id(n) not in materialize:
            outer = e.kind == "scan" and e.attrs["axis"] != len(e.shape) - 1
            if outer:
                plan.decisions.append(f"{n.label}: written (a scan along an outer axis)")
                materialize.add(id(n))
            elif any(not _shares_scan_loop(c, n, e) for c in consumers.get(id(n), [])):
                plan.decisions.append(f"{n.label}: written once (a scan read at other places)")
                materialize.add(id(n))
            elif e.kind == "scan":
                plan.decisions.append(f"{n.label}: a scan computed in its readers' loop nest "
                                      "(not written)")
    # the definitions again, now that loads of materialized nodes are known; a written
    # pointwise node is still inlined into its readers in the same stretch between NumPy
    # steps (they share a loop nest: computed once). Across a NumPy step the reader is
    # another kernel, and inlining would recompute the producer there, and its producer
    # in turn (Floyd-Warshall's d = np.minimum(d, d[:, k, None] + d[None, k, :]) grew
    # every kernel by one more step: 150 distinct kernels, 20 s to compile).
    # A node that is not written is computed inside the kernels that read it, so the
    # stretch that counts is theirs: `u = 0.5 * u + 0.25 * (np.roll(u, 1) + ...)` takes
    # 0.5 * u right after u is written, before the roll's NumPy steps, but computes it
    # in the next iteration's kernel; inlining u there recomputed every earlier
    # iteration (and kept all their arrays alive).
    first = exprs
    exprs = {}
    stretch, stretch_of = 0, {}
    for n in pending:
        if not lowerable[id(n)]:
            stretch += 1
            continue
        stretch_of[id(n)] = stretch
    evaluated = _evaluated_in(pending, lowerable, materialize, consumers, stretch_of)
    # A node that no one writes, computed by kernels of several stretches, is computed
    # again in each, and with it every such node it reads: `v = v + c * (np.roll(u, 1)
    # + ...)`, never viewed, grew each time step's kernel by the step before (50 steps:
    # 50 distinct kernels, 2 s to compile). Beyond a trivial expression it is written
    # where it is made. (A chain computed by one later kernel, Horner's y = y * x + c
    # between the coefficients' reads, stays one fused kernel.)
    late = [n for n in pending if lowerable[id(n)] and id(n) not in materialize and
            evaluated[id(n)] == _MANY and depth.get(id(n), 0) > 2]
    if late:
        for n in late:
            materialize.add(id(n))
            plan.decisions.append(f"{n.label}: written (read by kernels after several NumPy steps)")
        evaluated = _evaluated_in(pending, lowerable, materialize, consumers, stretch_of)
    for n in pending:
        if not lowerable[id(n)]:
            continue
        here = evaluated[id(n)]
        # a view or concatenation reads its input at other indexes: inlined, a written
        # input would be computed again there rather than shared with its writer
        moves = first[id(n)].kind in ("view", "concat", "gather")
        ins = [load(i) if (i.is_leaf or not lowerable.get(id(i)) or id(i) in cut or
                           (id(i) in materialize and (moves or here != stretch_of[id(i)] or
                                                      _has_reduce(first[id(i)], has_reduce_memo) or
                                                      (_has_scan(first[id(i)], has_scan_memo) and
                                                       not _shares_scan_loop(n, i, first[id(i)])))))
               else exprs[id(i)] for i in n.inputs]
        exprs[id(n)] = low.lower(n, ins)

    # 3. steps in order: NumPy steps and kernels; independent kernels of one shape merge
    group, group_ids, group_shape, group_serial = [], set(), None, False
    n_kernels = 0   # counted as they close (counting the steps each time was quadratic)

    scanning = any(e.kind == "scan" for e in exprs.values())

    def close():
        nonlocal group, group_ids, group_shape, n_kernels
        if group:
            if scanning:
                group = _from_memory(group, load, exprs, materialize, scans=True)
            group = _from_memory(group, load, exprs, materialize, scans=False)
            plan.steps.append(("kernel", group, group_shape))
            k = n_kernels
            n_kernels += 1
            for node, _ in group:
                plan.kernel_of[id(node)] = k
            if len(group) > 1:
                plan.decisions.append(f"kernel {k}: {len(group)} outputs share one loop nest "
                                      f"({', '.join(nd.label for nd, _ in group)})")
        group, group_ids, group_shape = [], set(), None

    for n in pending:
        if not lowerable[id(n)]:
            close()
            plan.steps.append(("numpy", n))
            continue
        if id(n) not in materialize:
            continue
        e = exprs[id(n)]
        reads = {id(x) for x in _loads(e, set())}
        # a scan along every axis runs in one call: work without one is kept out of its
        # loop nest, where it would lose the threads (its own kernel splits them)
        axes = scanned_axes([e]) if scanning else ()
        serial = bool(axes) and len(axes) == len(n.shape)
        if group and (n.shape != group_shape or reads & group_ids or serial != group_serial):
            close()
        group.append((n, e))
        group_ids.add(id(n))
        group_shape, group_serial = n.shape, serial
    close()
    inlined_in = _kernel_of_exprs(plan)
    for n in pending:
        if lowerable[id(n)] and id(n) not in materialize:
            k = inlined_in.get(id(exprs.get(id(n))))
            if k is not None:
                plan.kernel_of[id(n)] = k
    return plan


_MANY = -1   # computed in kernels of several stretches


def _from_memory(group, load, exprs, written, scans):
    """The kernel's roots with what another kernel writes read from memory where
    computing it again would cost: with `scans`, every scan (inlined into a reader that
    ended up in a later kernel, a different shape coming between them, it would run
    again there, along an outer axis out of the loop nest that reads back its rows;
    scans no kernel writes are computed where read); else anything inside a reduction,
    which has a loop nest of its own (a bisection step's exit test np.max(hi - lo)
    computed lo and hi again, two pow calls per element, serially, and was 2.5x slower
    than the step). `exprs` (node id -> its expression) follows the rewritten ones."""
    own = {id(node) for node, _ in group}
    done = {}
    return [(node, _reading_memory(e, own, written, load, exprs, done, False, scans))
            for node, e in group]


def _reading_memory(e, own, written, load, exprs, done, inside, scans):
    # a plain function, not a closure calling itself: that closure would be a reference
    # cycle keeping the graph's arrays alive until the next garbage collection
    key = (id(e), inside)
    got = done.get(key)
    if got is None:
        if (e.kind == "scan" if scans else inside and e.kind != "load") and \
                e.node is not None and id(e.node) in written and id(e.node) not in own:
            got = load(e.node)
        else:
            below = not scans and (inside or e.kind == "reduce")
            ins = [_reading_memory(x, own, written, load, exprs, done, below, scans)
                   for x in e.inputs]
            got = e
            if any(a is not b for a, b in zip(ins, e.inputs)):
                got = Expr(e.kind, e.op, ins, e.shape, e.dtype, e.attrs, node=e.node)
                if e.node is not None and exprs.get(id(e.node)) is e:
                    exprs[id(e.node)] = got
        done[key] = got
    return got


def _evaluated_in(pending, lowerable, materialize, consumers, stretch_of):
    """id(node) -> the stretch (run of kernels between NumPy steps) whose kernel computes
    it: its own when written, else that of the kernels inlining it (_MANY when several)."""
    where = {}
    for n in reversed(pending):
        k = id(n)
        if not lowerable[k]:
            continue
        if k in materialize:
            where[k] = stretch_of[k]
            continue
        got = None
        for c in consumers.get(k, ()):
            s = where.get(id(c))
            if s is None:
                continue
            if got is None:
                got = s
            elif got != s:
                got = _MANY
                break
        where[k] = stretch_of[k] if got is None else got
    return where


def _kernel_of_exprs(plan):
    """id(expression) -> the first kernel that computes it inline: one walk over all
    kernels (asking per node re-walked every kernel: quadratic in long loops)."""
    where, k = {}, -1
    for step in plan.steps:
        if step[0] != "kernel":
            continue
        k += 1
        stack = [e for _, e in step[1]]
        while stack:
            e = stack.pop()
            if id(e) in where:
                continue
            where[id(e)] = k
            stack.extend(e.inputs)
    return where


def scalar_source(calls, p):
    """Is the 0-d result at graph position p a NumPy scalar (not a 0-d array)? (True or
    False, None) where the graph decides, (None, q) where it follows whether the value
    at leaf position q is one (astype or copy of an argument, through any chain of
    them). `calls`: position -> (fn, args, kwargs, input positions) of the graph's ops.
    The op that made astype's input decides, not its value at run time: fused into the
    same kernel, that value is never made ((x.sum() * 2).astype(np.int32) came back a
    0-d array, found by make fuzz)."""
    while p in calls:
        fn, args, _, inputs = calls[p]
        if fn is operator.getitem and len(args) == 2:
            # an element read by integers, index arrays of none (x[i] with i traced, a
            # gather in a kernel): NumPy's scalar; with an Ellipsis, a 0-d view
            items = args[1] if type(args[1]) is tuple else (args[1],)
            return not any(k is Ellipsis for k in items), None
        got = scalar_result(fn)
        if got is not None:
            return got, None
        p = inputs[0]
    return None, p


def scalar_result(fn):
    """returns_scalar without the inputs: True or False, or None where it follows
    whether the first input is a scalar (astype, copy)."""
    if fn is operator.pow or fn is np.clip:
        return True
    if fn in (calls.astype, calls.copy):
        return None
    return returns_numpy_scalar(fn)