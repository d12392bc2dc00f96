"""Renders a fused kernel (one loop nest, one or more outputs) as self-contained C++.

Calling convention (compiler/runtime): extern "C" void k(char** bufs, const i64* P,
i64 begin, i64 end) computes output rows [begin, end) of the outermost dimension; P
holds the element strides of inputs that are not C-contiguous. Every value is computed
once per scope it depends on: loop-invariant values sit outside the loops that do not
change them."""
import hashlib
import linecache
import re

import numpy as np

from ..fusion.expr import scanned_axes, top_reduces
from ..ops import INT_DIVISIONS
from . import (cpp_columns, cpp_complex, cpp_extrema, cpp_half, cpp_intervals, cpp_ops, cpp_scan,
               cpp_sums)
from .cpp_sums import counts as _counts, numpy_ordered
from .numpy_sum_order import split_units
from .cpp_ops import ctype, kahan_add, linear_index, literal

# the dtype kinds this renderer computes (fusion/expr.Lowering lowers only these)
KINDS = "biufc"

_VAR = re.compile(r"\b[ir]\d+(?:_\d+)?\b")
_GATHERED = re.compile(r"\bg\d+\b")   # names of gathered indexes (Emitter._gather_index)


class Scope:
    def __init__(self, parent, names=()):
        self.parent = parent
        self.names = set(names)
        self.lines = []
        self.memo = {}
        self.open = []  # blocks of this scope still being filled, innermost last

    def emit(self, line):
        """Append, or when a nested block is open here (we are hoisting out of it),
        put the line just before that block."""
        if self.open:
            self.lines.insert(self.lines.index(self.open[-1]), line)
        else:
            self.lines.append(line)


class Signatures:
    """Structural identity of expressions: equal expressions are computed once (X.mean()
    and the mean inside X.std() are one reduction). A small int per distinct structure:
    a nested tuple would repeat shared subtrees (x = 0.5 * (x + a / x) doubles them per
    step) and hash them all. Renderers and schedules that must agree share one kind."""

    def __init__(self):
        self._sigs = {}
        self._interned = {}

    def __call__(self, e):
        sigs = self._sigs
        got = sigs.get(id(e))
        if got is None:
            if e.kind == "load":
                head = ("load", id(e.op))
            elif e.kind == "const":
                head = ("const", repr(e.op), e.dtype)
            elif e.kind == "reduce":
                # keepdims only adds size-1 axes: X.mean(axis=0) and the keepdims mean
                # inside X.std(axis=0) are one reduction (see _kept_index)
                attrs = tuple(sorted((k, v) for k, v in e.attrs.items() if k != "keepdims"))
                head = (e.kind, e.op, e.dtype, attrs)
            else:
                attrs = tuple(sorted((k, v) for k, v in e.attrs.items()))
                head = (e.kind, e.op, e.shape, e.dtype, attrs)
            whole = head + tuple(self(x) for x in e.inputs)
            got = sigs[id(e)] = self._interned.setdefault(whole, len(self._interned))
            sigs[("keep", id(e))] = e  # ids stay unique while the signature is cached
        return got


class Emitter:
    # a double read from P[] as its bits (a symbolic kernel's float constants)
    double_of_bits = "__builtin_bit_cast(double, {})"
    # min/max/argmin/argmax in two vectorizable passes (codegen/cpp_extrema.py); the
    # CUDA emitter, whose lanes split reductions themselves, keeps one sequential pass
    vector_extrema = True
    # reductions of all axes but the last in blocks of columns (codegen/cpp_columns.py)
    column_blocks = True

    def __init__(self, kernel, buffer_of):
        self.k = kernel
        self.buffer_of = buffer_of  # load Expr -> Buffer
        self._signature = Signatures()
        self.counter = 0
        self.root = Scope(None)
        self.cur = self.root
        self.seen_sites = set()
        # Full reductions computed in parallel (render_split_kernel): id(reduce Expr) ->
        # ("partial", chunk variable, chunks, part name) while rendering the per-chunk
        # function, ("final", None, chunks, part name) while rendering the combine.
        self.split = {}
        self.gathered = {}    # gathered index name -> the loop variables it depends on
        # index-set splitting (codegen/cpp_intervals.py): the seams of concatenations
        # met along a loop variable; the intervals each loop is cut into; the interval
        # of each loop variable while its part is rendered
        self.cuts = {}
        self.intervals = {}
        self.fixed = {}
        self._dims = {}       # symbolic kernels: size key -> its name in P[] (extent)

    def extent(self, key, n):
        """A size as the text uses it: the number, or in a symbolic kernel the name of a
        run-time parameter. Names follow the order of first use, which depends only on
        the kernel's structure, so kernels that differ only in sizes render alike. Sizes
        of 1 stay in the text: they decide broadcasting."""
        if not self.k.symbolic or n == 1:
            return n
        dims = self._dims
        name = dims.get(key)
        if name is None:
            name = dims[key] = f"S{len(self.k.extents)}"
            self.k.extents.append(n)
        return name

    def _view_index(self, e, idx):
        """The base's index of a view's element idx. In a symbolic kernel its offsets and
        multipliers are run-time sizes too: `delta[t - 1]` of an array the graph writes
        moves with t, and written into the text it made one kernel per t (Viterbi, 400)."""
        if not self.k.symbolic:
            return _view_index(e.attrs["map"], idx)
        m = [(self.extent(("view", id(e), b), start) if start else 0,
              [(d, self.extent(("view", id(e), b, d), k)) for d, k in steps])
             for b, (start, steps) in enumerate(e.attrs["map"])]
        return _view_index(m, idx)

    def _const_param(self, e):
        """A constant of a symbolic kernel, read from P[] like its sizes: a loop's Python
        ints and floats (p = k + np.argmax(...)) differ at every iteration, and written
        into the text they made one kernel per value. Floats travel as their bits."""
        dt = e.dtype
        v = np.asarray(e.op).astype(dt)[()]
        if dt.kind == "c":   # its two parts, each as a double's bits (z *= np.exp(1j * w * t))
            parts = [self._double_param(("const", id(e), k), x)
                     for k, x in ((0, float(v.real)), (1, float(v.imag)))]
            return f"{ctype(dt)}({parts[0]}, {parts[1]})"
        if dt.kind == "f":
            as_double = self._double_param(("const", id(e)), float(v))
            return as_double if dt.itemsize == 8 else f"(({ctype(dt)}){as_double})"
        bits = int(np.asarray(int(v), np.uint64).view(np.int64)) if dt.kind == "u" else int(v)
        name = self.extent(("const", id(e)), bits) if bits != 1 else None
        if name is None or type(name) is int:   # 1 stays a literal (extent keeps 1s)
            return literal(e.op, dt)
        if dt.kind == "b":
            return f"({name} != 0)"
        return f"(({ctype(dt)}){name})"

    def _double_param(self, key, x):
        """A double read from P[] as its bits (a literal where the bits are 1: see
        extent)."""
        bits = int(np.asarray(x, np.float64).view(np.int64))
        name = self.extent(key, bits) if bits != 1 else None
        if name is None or type(name) is int:
            return literal(x, np.float64)
        return self.double_of_bits.format(name)

    def fresh(self, prefix="v"):
        self.counter += 1
        return f"{prefix}{self.counter}"

    # ----- scopes ----------------------------------------------------------------------
    def _loop_vars(self, idx):
        """The loop variables index idx depends on (a gathered index: those its index
        array was read at)."""
        names = set()
        for s in idx:
            names.update(_VAR.findall(s))
            for g in _GATHERED.findall(s):
                names.update(self.gathered[g])
        return names

    def _home(self, idx):
        names = self._loop_vars(idx)
        sc = self.cur
        while sc.parent is not None and not (sc.names & names):
            sc = sc.parent
        return sc

    def _lookup(self, key):
        sc = self.cur
        while sc is not None:
            if key in sc.memo:
                return sc.memo[key]
            sc = sc.parent
        return None

    def open_loop(self, header, names):
        block = Scope(self.cur, names)
        item = (header, block)
        self.cur.emit(item)
        self.cur.open.append(item)
        self.cur = block
        return block

    def close_loop(self):
        parent = self.cur.parent
        parent.open.pop()
        self.cur = parent

    # ----- expressions --------------------------------------------------------------------
    def value(self, e, idx):
        """A C++ name holding expression e at index idx (a tuple of C++ index strings)."""
        if e.kind == "const" and e.dtype.kind != "c":
            if self.k.symbolic:
                return self._const_param(e)
            return literal(e.op, e.dtype)
        if e.kind == "const":   # a complex constant: named once (its parts are read apart)
            idx = ()
        key = self.memo_key(e, idx)
        got = self._lookup(key)
        if got is not None:
            return got
        home = self._home(idx)
        if e.kind == "reduce":
            name = self._reduce(e, idx)
        elif e.kind == "scan":
            name = cpp_scan.value(self, e, idx)
        else:
            expr = self._expr(e, idx)
            name = self.fresh()
            saved = self.cur
            self.cur = home if home is not None else self.cur
            self.cur.emit(f"const {ctype(e.dtype)} {name} = {expr};{self._comment(e)}")
            self.cur = saved
            home.memo[key] = name
            return name
        home.memo[key] = name
        return name

    def memo_key(self, e, idx):
        """What names e's value at idx in the scopes' memos."""
        return (self._signature(e), _kept_index(e, idx))

    def _comment(self, e):
        node = e.node
        if node is None or node.site is None:
            return ""
        filename, lineno = node.site
        if (filename, lineno) in self.seen_sites:
            return ""
        self.seen_sites.add((filename, lineno))
        # a line continued with a backslash would continue the C++ comment too, and
        # swallow the next statement (`U[1:-1], V[1:-1] = \` in a Turing-pattern step:
        # "use of undeclared identifier"); a */ or a newline cannot end it here either
        text = linecache.getline(filename, lineno).strip().rstrip("\\").rstrip()
        self.k.ops.append((node.label, lineno, text))
        return f"  // line {lineno}: {text}" if text else f"  // line {lineno}"

    def _expr(self, e, idx):
        if e.kind == "const":
            return self._const_param(e) if self.k.symbolic else literal(e.op, e.dtype)
        if e.kind == "load":
            return self._load(e, idx)
        if e.kind == "cast":
            x = e.inputs[0]
            v = self.value(x, idx)
            if cpp_half.F2 in (e.dtype, x.dtype):
                return cpp_half.cast(v, x.dtype, e.dtype, self.k.need)
            if "c" in (e.dtype.kind, x.dtype.kind):
                return cpp_complex.cast(v, x.dtype, e.dtype)
            if e.dtype.kind == "b":
                return f"({v} != 0)"
            if x.dtype.kind == "f" and e.dtype.kind in "iu":
                return self._checked_cast(v, x.dtype, e.dtype, idx)
            return f"(({ctype(e.dtype)}){v})"
        if e.kind == "pw":
            args = []
            for x in e.inputs:
                args.append(self.value(x, _broadcast(idx, e.shape, x.shape)))
            in_dt = e.inputs[0].dtype if e.op != "where" else e.dtype
            if e.op == "where":
                return f"({args[0]} ? {args[1]} : {args[2]})"
            return cpp_ops.render(e.op, args, in_dt, e.dtype, self.k.need,
                                  nonzero=e.op in INT_DIVISIONS and _nonzero(e.inputs[1]))
        if e.kind == "concat":
            return self._concat(e, idx)
        if e.kind == "view":
            inline = self._inline(e, idx)
            return inline if inline is not None else self.value(e.inputs[0], self._view_index(e, idx))
        if e.kind == "gather":
            return self.value(e.inputs[0], self._gather_index(e, idx))
        raise KeyError(e.kind)

    def _gather_index(self, e, idx):
        """The index of x read by a gather's element idx (fusion/expr.py _gather): each
        index array's value there, counted from the end where negative, checked to lie
        in x (else npc_bad: NumPy reruns the graph and raises its IndexError; the read
        goes to element 0, so that no memory outside x is touched)."""
        x = e.inputs[0]
        first, size = e.attrs["block"]
        block = idx[first:first + size]
        out = []
        for d, (kind, v) in enumerate(e.attrs["axes"]):
            if kind == "s":
                out.append(idx[v])
                continue
            if kind == "i":    # a fixed index: a run-time size in a symbolic kernel
                out.append(str(self.extent(("gather", id(e), d, "i"), v)) if v else "0")
                continue
            ix = e.inputs[1 + v]
            at = _broadcast(block, tuple(e.shape[first:first + size]),
                            ix.shape)
            raw = self.value(ix, at)
            n = self.extent(("gather", id(e), d), x.shape[d])
            g = self.fresh("g")
            ok = self.fresh("ok")
            saved = self.cur
            self.cur = self._home(at)
            self.gathered[g] = self._loop_vars(at)
            self.cur.emit(f"const i64 {g}_ = (i64){raw} < 0 ? (i64){raw} + (i64){n} : (i64){raw};")
            self.cur.emit(f"const bool {ok} = (u64){g}_ < (u64){n};")
            self.cur.emit(f"npc_bad |= !{ok};")
            self.cur.emit(f"const i64 {g} = {ok} ? {g}_ : 0;")
            self.cur = saved
            self.k.need.add(("flag",))
            out.append(g)
        return tuple(out)

    def _concat(self, e, idx):
        """A select on the index along the axis. Pieces that only move data (loads
        through views and concatenations) are read inside their branch (a ternary
        evaluates one side), so their shifted index never leaves their array; a
        computed piece is a statement of its own, evaluated at every element, so its
        index is clamped into its range (and the value discarded outside it)."""
        inline = self._inline(e, idx)
        if inline is not None:
            return inline
        return self._select(e, idx, self._piece, seams=True)

    def _piece(self, x, idx, d, n):
        got = self._inline(x, idx)
        if got is not None:
            return got
        if x.kind == "const" or n is None:    # n None: idx lies in x (a loop's part)
            return self.value(x, idx)
        last = n - 1 if type(n) is int else f"({n} - 1)"
        self.k.need.add(("helper", "clamp", "i64"))
        return self.value(x, idx[:d] + (f"npc_clamp_i64({idx[d]}, {last})",) + idx[d + 1:])

    def _select(self, e, idx, piece, seams=False):
        """The piece of concatenation e at idx: a select on the index along its axis,
        or, in a part of a loop cut at its seams, the one piece there. seams: whether
        to note where its pieces meet (a computed piece, whose reads are clamped);
        concatenations of loads alone (np.roll of an argument) are a select of loads,
        cheaper than the copies of the loop body that cutting would take."""
        d = e.attrs["axis"]
        i = idx[d]
        sizes = [self.extent(("concat", id(e), k), x.shape[d]) for k, x in enumerate(e.inputs)]
        starts, ends, offset = [], [], 0
        for n in sizes:
            starts.append(offset)
            offset = offset + n if type(n) is int and type(offset) is int else (
                n if offset == 0 else f"({offset} + {n})")
            ends.append(offset)
        at = lambda s: i if s == 0 else f"({i} - {s})"
        iv = self.fixed.get(i)
        k = cpp_intervals.piece(iv, starts, ends) if iv is not None else None
        if k is not None:      # this part of the loop lies in piece k: no select
            return piece(e.inputs[k], idx[:d] + (at(starts[k]),) + idx[d + 1:], d, None)
        if seams and cpp_intervals.is_loop_var(i) and len(ends) > 1:
            self.cuts.setdefault(i, set()).add(tuple(ends[:-1]))
        cases = []
        for k, (x, n) in enumerate(zip(e.inputs, sizes)):
            v = piece(x, idx[:d] + (at(starts[k]),) + idx[d + 1:], d, n)
            if v is None:
                return None
            cases.append((ends[k], v))
        text = cases[-1][1]
        for end, v in reversed(cases[:-1]):
            text = f"({i} < {end} ? {v} : {text})"
        return text

    def _inline(self, x, idx):
        """x at idx as one C++ expression when x only moves data (loads, constants,
        views, concatenations of these), else None."""
        while x.kind == "view":
            x, idx = x.inputs[0], self._view_index(x, idx)
        if x.kind == "load":
            return self._load(x, idx)
        if x.kind == "const":
            return self.value(x, idx)
        if x.kind == "concat":
            return self._select(x, idx, lambda p, at, d, n: self._inline(p, at))
        return None

    def _checked_cast(self, v, src, dst, idx):
        """float -> int where the truncation fits (NumPy and C agree there); anything
        else (NaN, out of range) sets npc_bad: the kernel reports it and the graph
        reruns in NumPy. The select keeps the C++ defined for every input."""
        info = np.iinfo(dst)
        lo = literal(float(info.min) - 1.0, src) if float(info.min) - 1.0 != float(info.min) \
            else None
        hi = literal(float(info.max) + 1.0, src)
        ok = self.fresh("ok")
        cond = f"{v} < {hi}" + (f" && {v} > {lo}" if lo is not None else f" && {v} >= {literal(float(info.min), src)}")
        saved = self.cur
        self.cur = self._home(idx)
        self.cur.emit(f"const bool {ok} = {cond};")
        self.cur.emit(f"npc_bad |= !{ok};")
        self.cur = saved
        self.k.need.add(("flag",))
        return f"(({ctype(dst)})({ok} ? {v} : 0))"

    def _flag_frame(self):
        """npc_bad: set by checked casts and integer powers; stored once per call."""
        if ("flag",) in self.k.need:
            self.root.lines.insert(0, "bool npc_bad = false;")
            self.root.lines.append("if (npc_bad) __atomic_store_n(npc_flag, 1, __ATOMIC_RELAXED);")

    def _load(self, e, idx):
        buf = self.buffer_of(e)
        terms = []
        stride = 1
        for d in range(len(buf.shape) - 1, -1, -1):
            if buf.shape[d] != 1:
                if buf.contiguous:
                    s = str(stride)
                elif buf.strides is not None:  # known when the plan was made, checked per run
                    s = str(buf.strides[d])
                else:
                    s = f"P[{buf.param + d}]"
                if s != "0":  # a broadcast view: the index does not move the address
                    terms.append(f"{idx[d]}*{s}" if s != "1" else idx[d])
            stride = _times(stride, self.extent(("buf", buf.index, d), buf.shape[d]))
        off = " + ".join(reversed(terms)) if terms else "0"
        return f"in{buf.index}[{off}]"

    def _reduce(self, e, idx):
        op = e.op
        x = e.inputs[0]
        split = self.split.get(id(e))
        if numpy_ordered(e):
            return cpp_sums.render(self, e, idx)
        if split is not None and split[0] == "final":
            return self._combine_partials(e, idx, split)
        rid, xidx, rvars = self.reduce_index(e, idx)
        T = ctype(e.dtype)
        xT = ctype(x.dtype)
        acc = f"acc{rid}"
        # a float sum of booleans (np.mean(x <= 1)) is a count: integers add exactly and
        # in any order, so the plain loop vectorizes; the count converts exactly after
        count = _counts(e)
        AT = "i64" if count else T
        if count:
            x = x.inputs[0]
        # the accumulator lives where idx is bound; a per-chunk partial lives in the
        # chunk loop, and its outermost reduced axis covers only the chunk's slice
        home = self._home(idx) if split is None else self.cur
        saved = self.cur
        self.cur = home
        bounds = {v: ("0", str(n)) for v, n in rvars}
        if split is not None:
            _, c, chunks, _ = split
            v0, n0 = rvars[0]
            self.cur.emit(f"const i64 lo{rid} = {c} * {n0}LL / {chunks}, "
                          f"hi{rid} = ({c} + 1) * {n0}LL / {chunks};")
            bounds[v0] = (f"lo{rid}", f"hi{rid}")
        if self.vector_extrema and cpp_extrema.applies(op, x):
            result = cpp_extrema.render(
                self, e, op, x, rid, xidx, rvars, bounds,
                lambda a, v: self._combine(op, a, v, rid, rvars, x.dtype), self._init(op, x.dtype))
            self.cur = saved
            return result
        if op in ("argmin", "argmax"):
            self.cur.emit(f"{xT} best{rid} = 0; i64 {acc} = 0; bool first{rid} = true;")
        else:
            self.cur.emit(f"{AT} {acc} = {self._init(op, e.dtype)};")
        for v, n in rvars:
            lo, hi = bounds[v]
            self.open_loop(f"for (i64 {v} = {lo}; {v} < {hi}; ++{v})", [v])
        val = self.value(x, tuple(xidx))
        self.cur.emit(self._combine(op, acc, val, rid, rvars, x.dtype))
        for _ in rvars:
            self.close_loop()
        result = acc
        if split is not None:  # partials keep the accumulator's precision
            self.cur = saved
            return result
        if AT != T and op not in ("argmin", "argmax"):
            result = self.fresh()
            self.cur.emit(f"const {T} {result} = (({T}){acc});")
        self.cur = saved
        return result

    @staticmethod
    def acc_type(e):
        """The C type a reduction accumulates in: its own, as NumPy's (a count of
        booleans summed as floats: double, exact)."""
        return "double" if (e.op == "sum" and e.dtype.kind == "f" and not numpy_ordered(e)) \
            else ctype(e.dtype)

    def _combine_partials(self, e, idx, split):
        """The chunks' partials combined in chunk order: the same result for any
        number of threads (chunk boundaries depend only on the sizes)."""
        _, _, chunks, part = split
        op = e.op
        T, AT = ctype(e.dtype), self.acc_type(e)
        rid = self.fresh("r")[1:]
        acc = f"acc{rid}"
        saved = self.cur
        self.cur = self._home(idx)
        self.cur.emit(f"{AT} {acc} = {self._init(op, e.dtype)};")
        c = f"c{rid}"
        if AT == "double" and op == "sum":
            self.cur.emit(f"{AT} comp{rid} = 0;")
            body = kahan_add(AT, acc, f"{part}[{c}]", f"comp{rid}")
        else:
            body = self._combine(op, acc, f"{part}[{c}]", rid, [], e.dtype)
        self.open_loop(f"for (i64 {c} = 0; {c} < {chunks}; ++{c})", [c])
        self.cur.emit(body)
        self.close_loop()
        result = acc
        if AT != T:
            result = self.fresh()
            self.cur.emit(f"const {T} {result} = (({T}){acc});")
        self.cur = saved
        return result

    def build_partials(self, splits, chunks):
        """The per-chunk function: chunk c of each split reduction into part_j[c]."""
        self.open_loop("for (i64 c = begin; c < end; ++c)", ["c"])
        for j, e in enumerate(splits):
            self.split[id(e)] = ("partial", "c", chunks, f"part{j}")
            acc = self._reduce(e, ())
            self.cur.emit(f"part{j}[c] = {acc};")
        self.close_loop()
        self._flag_frame()

    def reduce_index(self, e, idx):
        """(rid, index of the reduced operand, [(loop variable, extent)]): kept dims come
        from idx, reduced dims are new loop variables r{rid}_{dim}."""
        x, axes, keep = e.inputs[0], e.attrs["axes"], e.attrs["keepdims"]
        rid = self.fresh("r")[1:]
        xidx, rvars, it = [], [], iter(idx)
        for d in range(len(x.shape)):
            if d in axes:
                if keep:
                    next(it)
                v = f"r{rid}_{d}"
                rvars.append((v, self.extent(("red", rid, d), x.shape[d])))
                xidx.append(v)
            else:
                xidx.append(next(it))
        return rid, xidx, rvars

    def _init(self, op, dtype):
        if op == "sum" or op == "any":
            return "0"
        if op == "prod" or op == "all":
            return "1"
        info = np.finfo(dtype) if dtype.kind == "f" else (np.iinfo(dtype) if dtype.kind in "iu" else None)
        if dtype.kind == "b":
            return "true" if op == "min" else "false"
        if dtype.kind == "f":
            return literal(np.inf if op == "min" else -np.inf, dtype)
        return literal(info.max if op == "min" else info.min, dtype)

    def _combine(self, op, acc, val, rid, rvars, xdt):
        if op == "sum":
            return f"{acc} += {val};"
        if op == "prod":
            return f"{acc} *= {val};"
        # any/all without a branch per element (|| would skip the read: a loop that
        # does not vectorize); every element is read anyway as NumPy's loop reads them
        if op == "any":
            return f"{acc} |= ({val} != 0);"
        if op == "all":
            return f"{acc} &= ({val} != 0);"
        if op in ("min", "max"):
            cmp = "<=" if op == "min" else ">="
            nan = f" || {acc} != {acc}" if xdt.kind == "f" else ""
            return f"{acc} = ({acc} {cmp} {val}{nan}) ? {acc} : {val};"
        # argmin/argmax: the first extreme; a NaN wins at its first place, as in NumPy
        lin = linear_index([v for v, _ in rvars], [n for _, n in rvars])
        cmp = "<" if op == "argmin" else ">"
        nan_best = f"!(best{rid} != best{rid}) && " if xdt.kind == "f" else ""
        nan_v = f" || {val} != {val}" if xdt.kind == "f" else ""
        return (f"if (first{rid}) {{ best{rid} = {val}; {acc} = {lin}; first{rid} = false; }} "
                f"else if ({nan_best}({val} {cmp} best{rid}{nan_v})) {{ best{rid} = {val}; {acc} = {lin}; }}")

    # ----- the kernel ------------------------------------------------------------------------
    def build(self):
        if self.column_blocks and cpp_columns.build(self):
            return
        k = self.k
        idx = tuple(f"i{d}" for d in range(len(k.shape)))
        self._loops(0, idx)
        self._flag_frame()

    def _loops(self, d, idx):
        """The loops from dimension d in, and the outputs' stores inside. A call computes
        [begin, end) of one dimension (the first, unless a scan runs along it:
        backends/cpu.py's schedule), all of the others. A loop cut into intervals
        (codegen/cpp_intervals.py) is one loop per interval, each rendered apart."""
        k = self.k
        if d == len(k.shape):
            for out, root in zip(k.outputs, k.roots):
                v = self.value(root, idx)
                self.cur.emit(f"out{out.index}[{self.out_offset(idx)}] = ({ctype(out.dtype)}){v};")
            return
        var = idx[d]
        lo = "begin" if d == k.split_dim else "0"
        hi = "end" if d == k.split_dim else str(self.extent(("it", d), k.shape[d]))
        for iv in self.intervals.get(var, [None]):
            if iv is None:
                self.open_loop(f"for (i64 {var} = {lo}; {var} < {hi}; ++{var})", [var])
            else:
                self.fixed[var] = iv
                self.open_loop(cpp_intervals.header(var, iv, lo, hi), [var])
            self._loops(d + 1, idx)
            self.close_loop()
        self.fixed.pop(var, None)

    def out_offset(self, idx):
        """The element offset of index idx in an output (C order, the kernel's shape)."""
        shape = self.k.shape
        terms, stride = [], 1
        for d in range(len(shape) - 1, -1, -1):
            if shape[d] != 1:
                terms.append(f"{idx[d]}*{stride}" if stride != 1 else idx[d])
            stride = _times(stride, self.extent(("it", d), shape[d]))
        return " + ".join(reversed(terms)) if terms else "0"


def _nonzero(e):
    """Is e a constant without a 0 (a divisor that needs no zero check)?"""
    return e.kind == "const" and bool(np.all(np.asarray(e.op).astype(e.dtype) != 0))


def _times(a, b):
    """A stride times a size: a number while both are numbers, else C++ text."""
    if type(a) is int and type(b) is int:
        return a * b
    if a == 1:
        return b
    return a if b == 1 else f"{a}*{b}"


def _kept_index(e, idx):
    """The index a value depends on: a keepdims reduction ignores its size-1 axes."""
    if e.kind != "reduce" or not e.attrs["keepdims"]:
        return idx
    axes = e.attrs["axes"]
    return tuple(s for d, s in enumerate(idx) if d not in axes)


def _view_index(view_map, idx):
    """The base's index of a view's element idx (fusion/expr.view_map's map)."""
    out = []
    for start, steps in view_map:
        terms = [str(start)] if start else []
        terms += [idx[d] if k == 1 else f"{k}*{idx[d]}" for d, k in steps]
        out.append(" + ".join(terms).replace("+ -", "- ") if terms else "0")
    return tuple(f"({t})" if " " in t else t for t in out)


def _broadcast(idx, shape, xshape):
    """The index of a broadcast operand: trailing dims align, size-1 dims read index 0."""
    off = len(shape) - len(xshape)
    return tuple("0" if xd == 1 and shape[off + d] != 1 else idx[off + d]
                 for d, xd in enumerate(xshape))


def _render(lines, indent):
    out = []
    for item in lines:
        if isinstance(item, tuple):
            header, block = item
            out.append("  " * indent + (header + " {" if header else "{"))
            out.extend(_render(block.lines, indent + 1))
            out.append("  " * indent + "}")
        else:
            out.append("  " * indent + item)
    return out


def splittable(e, min_elements):
    """A full reduction worth computing as per-chunk partials: every axis reduced, no
    reduction inside (it would be recomputed per chunk), an associative combine."""
    if e.kind != "reduce" or e.op not in ("sum", "prod", "min", "max", "any", "all") or \
            e.dtype.kind == "c":   # complex partials: not written (one chunk's loop)
        return False
    x = e.inputs[0]
    if len(e.attrs["axes"]) != len(x.shape) or not x.shape:
        return False
    n = 1
    for d in x.shape:
        n *= d
    return n >= min_elements and x.shape[0] >= 2 and not _contains_reduce(x)


def _contains_reduce(e, seen=None):
    seen = set() if seen is None else seen
    if id(e) in seen:
        return False
    seen.add(id(e))
    return e.kind == "reduce" or any(_contains_reduce(x, seen) for x in e.inputs)


def split_chunks(splits, chunks):
    """The partials per reduction of a split kernel: `chunks`, unless it splits float
    sums, whose units NumPy's order decides (numpy_sum_order.split_units); 0 (do not
    split) where two of them disagree."""
    counts = {len(split_units(e, chunks)[0]) - 1 for e in splits if numpy_ordered(e)}
    if len(counts) > 1:
        return 0
    return counts.pop() if counts else chunks


def top_reductions(roots, min_elements):
    """The splittable reductions of a kernel that no other reduction contains."""
    return [e for e in top_reduces(roots) if splittable(e, min_elements)]


def render_split_kernel(kernel, buffer_of, splits, chunks):
    """A kernel of scalar outputs whose large full reductions run in parallel: function
    <name>_part(bufs, P, begin, end) writes chunk c's partial of reduction j to
    bufs[kernel.part_base + j][c] for c in [begin, end); <name> (one call) combines
    the partials in chunk order and computes the outputs. kernel.names lists both."""
    part = Emitter(kernel, buffer_of)
    part.build_partials(splits, chunks)
    final = Emitter(kernel, buffer_of)
    final.seen_sites = part.seen_sites
    final.counter = part.counter
    for j, e in enumerate(splits):
        final.split[id(e)] = ("final", None, chunks, f"part{j}")
    final.build()
    kernel.chunks = chunks
    kernel.part_base = len(kernel.outputs) + len(kernel.inputs)
    kernel.part_types = [Emitter.acc_type(e) for e in splits]
    params = _arguments(kernel) + [(f"{T}* __restrict__ part{j}", f"({T}*)bufs[{kernel.part_base + j}]")
                                   for j, T in enumerate(kernel.part_types)]
    params += _flag_argument(kernel, kernel.part_base + len(kernel.part_types))
    part_text = "\n".join(_render(part.root.lines, 1))
    final_text = "\n".join(_render(final.root.lines, 1))
    signature = ", ".join(d for d, _ in params)
    decl = cpp_ops.declarations(_need_types(kernel, part_text + final_text))
    digest = hashlib.sha1((decl + signature + part_text + final_text).encode()).hexdigest()[:12]
    kernel.name = f"npc_{digest}"
    kernel.names = [f"{kernel.name}_part", kernel.name]
    ops = "\n".join(f"// {label} (line {ln}): {t}" for label, ln, t in kernel.ops)
    head = (f"// npcompile kernel {kernel.name}: {len(kernel.outputs)} output(s); "
            f"{len(splits)} full reduction(s) in {chunks} chunks, combined in order\n{ops}\n")
    kernel.body = _entry(kernel.names[0], params, part_text) + _entry(kernel.name, params, final_text)
    kernel.head = head
    kernel.source = f"{head}{cpp_ops.PRELUDE}{decl}\n{kernel.body}"
    return kernel


def _need_types(kernel, text):
    """kernel.need, with the complex structs where the text names one (a where or a copy
    of complex values uses the type and no op of cpp_complex)."""
    if any(t in text for t in cpp_complex.CTYPE.values()):
        kernel.need.add(("complex",))
    return kernel.need


def _flag_argument(kernel, first_free):
    """The int32 flag a kernel sets when NumPy's semantics need NumPy (see npc_bad)."""
    if ("flag",) not in kernel.need:
        return []
    kernel.flag_index = first_free
    return [("int* __restrict__ npc_flag", f"(int*)bufs[{first_free}]")]


def _arguments(kernel):
    """(parameter, argument) per buffer: outputs, then inputs. Kernels write fresh
    arrays (an update in place is a NumPy step, calls.update_reusing): no output
    shares memory with an input, which __restrict__ tells the vectorizer."""
    args = []
    for b in kernel.outputs:
        args.append((f"{ctype(b.dtype)}* __restrict__ out{b.index}", f"({ctype(b.dtype)}*)bufs[{b.index}]"))
    for b in kernel.inputs:
        args.append((f"const {ctype(b.dtype)}* __restrict__ in{b.index}",
                     f"(const {ctype(b.dtype)}*)bufs[{b.index}]"))
    return args


def _entry(name, params, text):
    """The kernel's body in a function whose buffers are __restrict__ parameters, and
    the extern "C" entry point that calls it. Clang ignores __restrict__ on local
    variables: with the pointers as locals, a kernel of many buffers was left
    unvectorized (too many run-time alias checks: exp of 3 outputs and 4 inputs ran
    scalar, 3.5x slower); inlined, the parameters' noalias stays."""
    return (f"static inline __attribute__((always_inline)) void {name}_k(const i64* P, i64 begin, "
            f"i64 end{''.join(', ' + d for d, _ in params)}) {{\n"
            f"  (void)P; (void)begin; (void)end;\n{text}\n}}\n"
            f'extern "C" void {name}(char** bufs, const i64* P, i64 begin, i64 end) {{\n'
            f"  {name}_k(P, begin, end{''.join(', ' + a for _, a in params)});\n}}\n")


def _split_at_seams(kernel, buffer_of):
    """The kernel rendered, and rendered again with its loops cut where its
    concatenations' pieces meet when the first render met such seams along a loop
    variable (codegen/cpp_intervals.py). The second render names sizes as the first
    did (its loop bounds are the first's seams); a scan's running value lives across
    its loop, which must stay whole."""
    em = Emitter(kernel, buffer_of)
    need, ops = set(kernel.need), list(kernel.ops)
    em.build()
    if not em.cuts or kernel.columns or scanned_axes(kernel.roots):
        return em
    cut = cpp_intervals.plan(em.cuts, len(kernel.shape), _lines(em.root.lines))
    if not cut:
        return em
    kernel.need, kernel.ops = need, ops
    again = Emitter(kernel, buffer_of)
    again._dims = dict(em._dims)
    again.intervals = cut
    again.build()
    return again


def _lines(lines):
    return sum(1 + _lines(item[1].lines) if isinstance(item, tuple) else 1 for item in lines)


def render_kernel(kernel, buffer_of):
    """Fill kernel.source with the C++ text and kernel.name with its symbol."""
    em = _split_at_seams(kernel, buffer_of)
    body = _render(em.root.lines, 1)
    params = _arguments(kernel) + _flag_argument(kernel, len(kernel.outputs) + len(kernel.inputs))
    first = getattr(buffer_of, "nparams", 0)   # the sizes follow the strides in P[]
    sizes = [f"  const i64 S{j} = P[{first + j}];" for j in range(len(kernel.extents))]
    text = "\n".join(sizes + body)
    decl = cpp_ops.declarations(_need_types(kernel, text))
    digest = hashlib.sha1((decl + ", ".join(d for d, _ in params) + text).encode()).hexdigest()[:12]
    kernel.name = f"npc_{digest}"
    ops = "\n".join(f"// {label} (line {ln}): {t}" for label, ln, t in kernel.ops)
    # a symbolic kernel's text, head included, must not name this instance's sizes: it
    # is compiled once (the JIT caches by source) and serves them all
    space = (f"iteration space of {len(kernel.shape)} dimension(s), sizes S0..S"
             f"{len(kernel.extents) - 1} given at run time" if kernel.extents
             else f"iteration space {kernel.shape}")
    kernel.head = (f"// npcompile kernel {kernel.name}: {len(kernel.outputs)} output(s), "
                   f"{space}\n{ops}\n")
    kernel.body = _entry(kernel.name, params, text)
    kernel.source = f"{kernel.head}{cpp_ops.PRELUDE}{decl}\n{kernel.body}"
    return kernel


def module_source(kernels):
    """The translation unit compiled for a graph: each kernel's source with the
    prelude and the libm/helper declarations they share written once."""
    need = set()
    for k in kernels:
        need |= k.need
    parts = [cpp_ops.PRELUDE + cpp_ops.declarations(need) + "\n"]
    for k in kernels:
        parts.append(k.head + k.body)
    return "\n".join(parts)
