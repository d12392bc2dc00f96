"""The order in which NumPy adds the terms of a float sum (np.add.reduce: sum, mean, var,
std, nansum and a norm along an axis are built on it), so that a compiled sum gives
NumPy's bits: after a cast to uint8 a last-bit difference is a wrong pixel.
Target-independent facts, checked against NumPy 1.24 and 2.4
(tests/compiler/test_numpy_sum_order.py):

- The reduction walks its operand in memory order: axes sorted by stride, largest
  outermost (a Fortran-order array, a transpose), each axis from index 0 up (a negative
  stride too: reductions do not turn it around). Size-1 axes drop out; the innermost
  axes that are all reduced and lie contiguously one after another form one RUN.
  An array NumPy allocated (any computed value, a reduction's result) is contiguous in
  the axis order its iterator picked for the operands it came from.
- A run is summed pairwise: fewer than 8 terms one after another; up to 128 terms in 8
  interleaved partial sums, combined ((p0+p1)+(p2+p3))+((p4+p5)+(p6+p7)), the leftover
  terms added after them one by one; a longer run is cut at half its length rounded down
  to a multiple of 8, and the sums of the two halves added. A complex run of n terms is
  summed as its 2n numbers are: blocks of 4 terms (64 at most), each part with its own
  4 partial sums, halves cut at a multiple of 4 terms.
- NumPy 1.x hands a run over in pieces of its buffer size (8192 terms), 2.x whole; where
  the reduction itself casts (dtype=, the float64 mean of integers) both buffer, so both
  cut the run into buffer-size pieces.
- Every other term, and every run's (piece's) sum, is added to the result in the
  result's own type one at a time, outer axes in memory order, starting from 0.

Layouts this does not describe raise NotNumPyOrder, and the renderer does not compile
such a sum (the graph runs in NumPy, reported) rather than give other bits: innermost
reduced axes that are not one contiguous stretch (NumPy copies them through buffers
whose size NumPy 2 picks from the whole iteration), a broadcast operand."""
import numpy as np

# what the kernel says when a layout it was compiled for (a run of contiguous axes) does
# not hold for this call's strides (known only at run time): the graph reruns in NumPy
RUNTIME_CHECK = "npc_bad"


class NotNumPyOrder(Exception):
    """A float sum whose operand layout NumPy walks in an order not reproduced here."""


_UNBUFFERED_PIECE = []


def unbuffered_piece():
    """The piece size NumPy hands a contiguous run over in when nothing is cast: the
    buffer size (NumPy 1.x) or None (whole runs, NumPy 2.x). Asked of the installed NumPy
    once, with a sum whose two orders round apart: 2**24 at the head, ones at 8191 and
    8192. In pieces of 8192 each 1 meets 2**24 alone and is lost to rounding (2**24);
    whole, the two ones meet in one block first (2**24 + 2)."""
    if not _UNBUFFERED_PIECE:
        probe = np.zeros(8200, np.float32)
        probe[0] = 2.0 ** 24
        probe[8191:8193] = 1.0
        pieces = float(probe.sum()) == 2.0 ** 24
        _UNBUFFERED_PIECE.append(np.getbufsize() if pieces else None)
    return _UNBUFFERED_PIECE[0]


def buffered_piece():
    """The piece size of a reduction that casts its operand (both NumPy versions)."""
    return np.getbufsize()


class Order:
    """How a sum's terms meet: `run`, the reduced axes (outermost first, in memory
    order) walked as one flat pairwise run; `outer`, the other reduced axes (outermost
    first), added one term or one run's sum at a time; `piece`, the run's piece size
    (None: whole); `checks`, the C++ conditions on run-time strides the order assumes
    (each must hold); `perm`, the operand's axes in memory order (size-1 axes aside),
    and `layouts`, the Layouts that found them. Every axis is walked from index 0 up,
    a reversed one too: NumPy's reductions do not turn negative strides around."""

    def __init__(self, run, outer, piece, checks, perm, layouts):
        self.run = run
        self.outer = outer
        self.piece = piece
        self.checks = checks
        self.perm = perm
        self.layouts = layouts


def order_of(e, strides_of, strides_now=None):
    """The Order of reduce Expr `e` (a float sum). strides_of(load) gives the element
    strides of a load's axes (ints, or C++ text for strides known only at run time);
    strides_now(load), where given, this call's strides of every load: they decide the
    axis order (text strides are then checked to keep it), and a layout the order
    cannot take raises now rather than at every run."""
    now = _order(e, Layouts(strides_now or strides_of), None)
    return _order(e, Layouts(strides_of, now.layouts.perms), now)


def _order(e, layouts, now):
    x = e.inputs[0]
    axes = e.attrs["axes"]
    strides = layouts.of(x)
    checks = layouts.checks
    dims = [d for d in range(len(x.shape)) if x.shape[d] != 1]
    perm = _memory_order(dims, strides) if now is None else now.perm
    for d in perm:
        _require(checks, _nonzero(strides[d]), "a broadcast operand")
    for a, b in zip(perm, perm[1:]):
        _require(checks, _greater(_abs(strides[a]), _abs(strides[b])), "overlapping axes")
    block = []
    for d in reversed(perm):
        if d not in axes:
            break
        block.insert(0, d)
    for a, b in zip(block, block[1:]):
        # several reduced axes innermost: one run only where they are contiguous (a
        # reversed axis is walked from its start all the same: it joins no run)
        _require(checks, _equal(strides[a], times(strides[b], x.shape[b])),
                 "a reduced block of axes that is not contiguous")
    outer = tuple(a for a in perm if a in axes and a not in block)
    piece = buffered_piece() if _casts(x) else unbuffered_piece()
    return Order(tuple(block), outer, piece, checks, perm, layouts)


def _memory_order(dims, strides):
    """The axes from the largest stride to the smallest (NumPy's iteration order; C
    order among equals). Strides known only at run time: C order, checked then."""
    if not all(_known(strides[d]) for d in dims):
        return list(dims)
    return sorted(dims, key=lambda d: -abs(strides[d]))


def _casts(x):
    """Whether the reduction casts its operand itself (Lowering's cast carries no graph
    node; an astype the user wrote does, and NumPy has materialized it)."""
    return x.kind == "cast" and x.node is None


class Layouts:
    """Element strides of each expression's axes as NumPy holds its value: a load's are
    its buffer's; a view's follow from its base's through the view's index map; anything
    computed is a fresh array NumPy allocates contiguous in the axis order its iterator
    picks for the operands (numpy_axis_order), a reduction's result in its operand's.
    Where strides are known only at run time, the orders `perms` holds (found on this
    call's strides) are kept, and checked."""

    def __init__(self, strides_of, perms=None):
        self.strides_of = strides_of
        self.checks = []
        self.perms = {} if perms is None else perms
        self._fixed = perms is not None
        self._memo = {}

    def of(self, e):
        got = self._memo.get(id(e))
        if got is None:
            got = self._memo[id(e)] = self._of(e)
        return got

    def _of(self, e):
        if e.kind == "load":
            return tuple(self.strides_of(e))
        if e.kind == "const":
            return (0,) * len(e.shape)
        if e.kind == "view":
            base = self.of(e.inputs[0])
            out = [0] * len(e.shape)
            for b, (_, steps) in enumerate(e.attrs["map"]):
                for d, k in steps:
                    out[d] = _plus(out[d], times(base[b], k))
            return tuple(out)
        if e.kind == "reduce":
            x = e.inputs[0]
            perm = self._perm(e, x.shape, [self._operand(x, len(x.shape))])
            axes, kept = e.attrs["axes"], e.attrs["keepdims"]
            out_axis = {d: (d if kept else d - sum(a < d for a in axes))
                        for d in range(len(x.shape)) if kept or d not in axes}
            return _contiguous(e.shape, [out_axis[d] for d in perm if d in out_axis])
        nd = len(e.shape)
        operands = [self._operand(x, nd) for x in e.inputs]
        return _contiguous(e.shape, self._perm(e, e.shape, operands))

    def _operand(self, x, nd):
        """x's strides broadcast to nd axes: missing and size-1 axes read 0."""
        st = self.of(x)
        return [0] * (nd - len(x.shape)) + [0 if x.shape[d] == 1 else st[d]
                                             for d in range(len(x.shape))]

    def _perm(self, e, shape, operands):
        """The axis order NumPy's iterator picks for these operands: found where their
        strides are known; else the one found on this call's strides (or C order),
        each operand checked to fall along it."""
        if not self._fixed and all(_known(*st) for st in operands):
            perm = self.perms[id(e)] = numpy_axis_order(shape, operands)
            return perm
        perm = self.perms.get(id(e), list(range(len(shape))))
        for st in operands:
            moving = [d for d in perm if shape[d] != 1 and st[d] != 0]
            for a, b in zip(moving, moving[1:]):
                _require(self.checks, _greater(_abs(st[a]), _abs(st[b])),
                         "a value computed from operands in other orders")
        return perm


def _contiguous(shape, perm):
    """Strides of an array laid out in axis order perm (outermost first); axes not in
    perm have size 1."""
    out, acc = [0] * len(shape), 1
    for d in reversed(perm):
        out[d] = acc
        acc *= shape[d]
    return tuple(out)


def numpy_axis_order(shape, operands):
    """The axes, outermost first, in the order NumPy's iterator walks operands of these
    element strides (and allocates a result in): an insertion sort from the innermost
    axis, where an axis moves inward past another only if every operand with a nonzero
    stride on both says its stride there is smaller; any operand that says otherwise
    keeps C order."""
    inner_first = list(range(len(shape)))[::-1]
    for i0 in range(1, len(inner_first)):
        ax0 = inner_first[i0]
        pos = i0
        for i1 in range(i0 - 1, -1, -1):
            ax1 = inner_first[i1]
            swap = None
            for st in operands:
                if st[ax0] != 0 and st[ax1] != 0:
                    if abs(st[ax1]) <= abs(st[ax0]):
                        swap = False
                    elif swap is None:
                        swap = True
            if swap is None:
                continue
            if not swap:
                break
            pos = i1
        if pos != i0:
            inner_first.insert(pos, inner_first.pop(i0))
    return inner_first[::-1]


def c_strides(shape):
    out, acc = [], 1
    for n in reversed(shape):
        out.append(acc)
        acc *= n
    return tuple(reversed(out))


def _require(checks, cond, why):
    if cond is False:
        raise NotNumPyOrder(f"NumPy's order of this float sum is not reproduced: {why}")
    if cond is not True:
        checks.append(cond)


# strides are ints, or C++ text where they are known only at run time
def _known(*xs):
    return all(type(x) is int for x in xs)


def _nonzero(a):
    return a != 0 if _known(a) else f"({a} != 0)"


def _greater(a, b):
    return a > b if _known(a, b) else f"({a} > {b})"


def _equal(a, b):
    return a == b if _known(a, b) else f"({a} == {b})"


def _abs(a):
    return abs(a) if _known(a) else f"({a} < 0 ? -({a}) : ({a}))"


def times(a, k):
    """a * k: a number, or C++ text where either is."""
    if _known(a, k):
        return a * k
    if a == 1 or k == 1:
        return k if a == 1 else a
    return f"({a})*({k})"


def _plus(a, b):
    if _known(a, b):
        return a + b
    return b if a == 0 else f"({a} + {b})"


def split_units(e, chunks):
    """A full float sum cut into units that threads sum apart: (the flat index where
    each unit starts, then the end; how their sums meet). Pieces (NumPy 1.x, or a
    casting reduction) are added one after another onto 0 ("chain"), so each piece is a
    unit; a whole run (NumPy 2.x) is a pairwise tree, and its subtrees as many levels
    deep as fit in `chunks` are the units, paired neighbour with neighbour ("tree")."""
    x = e.inputs[0]
    n = 1
    for d in x.shape:
        n *= d
    piece = buffered_piece() if _casts(x) else unbuffered_piece()
    if piece is not None:
        return list(range(0, n, piece)) + [n], "chain"
    units = [(0, n)]
    while 2 * len(units) <= chunks and all(m > 128 for _, m in units):
        units = [half for s, m in units for half in _halves(s, m)]
    return [s for s, _ in units] + [n], "tree"


def _halves(s, n):
    """The two halves NumPy's pairwise sum cuts a run of n > 128 terms into."""
    half = n // 2 - (n // 2) % 8
    return (s, half), (s + half, n - half)
