"""The tracer of one compiled call or cell: records nodes, decides graph breaks, and
flushes the pending graph when Python needs a value.

The work of a flush (a graph break) is proportional to what changed since the previous
one, never to how many breaks came before: the arrays made since then, the storages
written since then, and the lazy arrays over those. Arrays the trace no longer reaches
are forgotten (weak references); the user's arrays are found by identity and by memory
owner (an index, not a scan) for the aliasing checks."""
import contextlib
import time
import weakref

import numpy as np

from ..dtypes import traceable, traced_dtype
from ..errors import GraphBreakError
from ..graph import calls
from ..graph.node import Node, Ref
from . import (budget, complex_parts, composite_rules, creation, function_rules, index_library,
               inplace, library_rules, linalg_library, numeric_library, piecewise, rules,
               ufunc_rules, view_compositions, view_rules)
from . import loop_values, steps as _steps
from .breaks import BreakRecord, user_frame, user_site
from .operand_types import Unsupported
from .context import _set_current, current  # noqa: F401 (current: re-exported)
from .overlap import overlaps
from .storage import Storage
from . import lazy_array as _la
from .lazy_array import concretize  # noqa: F401 (re-exported)

# what lazy arrays call (trace/rules.py); the functions composed of views and
# concatenations, the complex parts, the numeric helpers and the in-place
# np.fill_diagonal join the table of captured functions
rules.wire(function_rules=function_rules, inplace=inplace, library_rules=library_rules,
           ufunc_rules=ufunc_rules, view_rules=view_rules)
function_rules.TABLE.update(composite_rules.TABLE)
function_rules.TABLE.update(complex_parts.TABLE)
function_rules.TABLE.update(numeric_library.TABLE)
function_rules.TABLE.update(index_library.TABLE)
function_rules.TABLE.update(linalg_library.TABLE)
function_rules.TABLE.update(piecewise.TABLE)
function_rules.TABLE.update(view_compositions.TABLE)
function_rules.TABLE.update(inplace.TABLE)


def _refuse_untraced(dtype, label):
    """long double results, byte-swapped ones (astype('>f8')): the call runs
    in NumPy (Unsupported), and what follows from its result is traced again."""
    dt = np.dtype(dtype)
    if not traced_dtype(dt):
        raise Unsupported("unsupported", f"{label} makes {dt}, which runs in NumPy (kernels "
                          f"compute in native float32/64)")


def is_traceable(value):
    """An ndarray or a DeviceArray (GPU data enters a trace as a leaf too) of a traced
    dtype."""
    return traceable(value)


def _land_writes_before(pending, computed):
    """NumPy raised at an operation of the graph: the in-place writes into the user's
    arrays that came before it land, as they had eagerly. Each written storage's latest
    version that was computed (following its chain of updates back) is copied in."""
    if not computed:
        return
    for st in pending:
        if st.target is None:
            continue
        node = st.base
        while not node.is_leaf and id(node) not in computed and \
                node.fn in (calls.update, calls.update_reusing) and node.inputs:
            node = node.inputs[0]
        value = computed.get(id(node)) if not node.is_leaf else None
        if value is not None and value is not st.target:
            np.copyto(st.target, value, casting="unsafe")


# The largest concrete array a leaf copies when it enters the trace (wrap_input's
# snapshot): larger ones (a global matrix) are read where they are, as copying them at
# every trace would cost a pass over their memory; NumPy writing one of them in the
# middle of a traced call, between a read and the graph's run, is not seen.
SNAPSHOT_MAX = 1 << 20
MAX_SNAPSHOTS = 256     # per trace: a loop traced as written re-wraps its constants
SNAPSHOTS_BYTES = 32 << 20      # and all of them together, held until the trace ends


def _same_bytes(a, b):
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.size == 0:
        return True
    if a.flags.c_contiguous and b.flags.c_contiguous:    # a memcmp, no copies
        return memoryview(a).cast("B") == memoryview(b).cast("B")
    return np.ascontiguousarray(a).tobytes() == np.ascontiguousarray(b).tobytes()


class Tracer:
    def __init__(self, site, options, engine):
        self.site = site          # identifies the function or cell: cache and recompiles
        self.options = options    # dict: device, fullgraph, dynamic
        self.engine = engine      # runs a flushed graph (graph/engine.py)
        self.lazies = []          # weak refs to the LazyArrays made since the last flush
        # results computed at the next flush even when nothing reads them: operations
        # whose values can make NumPy raise (an integer power with a negative exponent),
        # as eager NumPy raises whether the result is used or not
        self.must_run = []
        self._settled = {}        # id(storage) -> weak refs to lazies settled on it
        self._settled_size = 0    # len(_settled) after its last clean-up
        self._dirty = {}          # id(storage) -> storage written since the last flush
        self._by_array = {}       # id(target ndarray) -> weak ref to its storage
        self._regions = {}        # memory owner -> weak refs to target storages in it
        self._exotic = []         # weak refs to target storages of an unknown memory owner
        # concrete boolean masks met as indices, kept traced for the whole trace: each
        # x[red] re-wrapped red as a new leaf once the last one was dropped, so
        # `inner[red] = a * inner[red] + b * gs[red]` saw three masks, not one
        # (three graph breaks in a red-black SOR sweep)
        self.mask_leaves = {}
        # id(leaf) -> (leaf, a copy of its values when it entered: wrap_input's snapshot)
        self._snapshots = {}
        # those of them the user's code reached since the last flush: only a graph made
        # since then can read them (a traced use of the array goes through
        # wrap_constant_array), so a flush compares these alone (comparing all of them
        # at every flush cost a loop of 400 flushes 0.2 s)
        self._touched = {}
        self._snapshot_bytes = 0
        self._targets_size = 0    # target entries indexed since the last clean-up
        self._targets_live = 0    # live target entries found by the last clean-up
        self.value_reads = 0      # times Python read a concrete array's values (no break)
        self.value_read_reason = None   # the first such read, in words (replay refuses)
        self.flush_index = 0      # graphs flushed so far in this call: part of the site key
        self.breaks = []
        # the graphs, eager calls and value reads of the call, in order (trace/steps.py),
        # and why a break could not be recorded so (None: every one was)
        self.steps = []
        self.returned_at = None  # len(steps) when the function returned (api/step_plan.py)
        self._steps_counted = [0, 0]    # (steps.too_many's count of the reads)
        self.unrecorded = None
        self.steps_wanted = False  # set by the jit: a plan of steps may come of this call
        self.recorded_reads = 0   # value_reads that are steps
        self._direct = None       # (node, expression) of the last direct read (note_direct)
        self.small_breaks = 0     # breaks whose graph held small arrays (budget.BREAK_LIMIT)
        self.break_weight = 0     # and their weight against that budget
        self.flushed_elements = 0  # the largest array the last flush computed
        self.ops = []
        self.graph_ids = []       # graphs run, by cache entry id
        self.runs = []            # (entry, leaves, outputs, ran compiled) per graph run
        self.writebacks = []      # (output node, user's array) per write into an input
        self.loop_notes = []      # what happened to each loop compiled once (loop_runner)
        # the op budget (trace/budget.py): why the trace stopped paying, or None; then
        # whether the call is being run again as plain NumPy, else every later flush
        # runs on the reference path
        self.budget_reason = None
        self.budget_retry = False  # over only by its new graphs: try again (budget.RETRIES)
        self.restarting = False
        self.reference_only = False
        self.untraced_rest = False   # past the break budget, the rest ran untraced
        self.compile_ms = 0.0     # spent compiling this call's graphs (budget.COMPILE_LIMIT_MS)
        # can the call run again from its start? Set by the jit (its purity Watch says
        # whether the user's code did anything outside the graph); `irreversible` says
        # what the trace itself did that must not happen twice
        self.can_restart = None
        self.irreversible = None
        # random draws made in the user's code, in order (trace/random_rules.Draw): a
        # replay (api/replay.py) draws them again, from the same stream
        self.draws = []
        # arrays the trace itself made from Python values (np.array of a literal list,
        # masks of np.triu/np.diag): id -> array (held: ids stay unique). A replay plan
        # keeps them as constants: they are the same for any call with the same key
        self.made = {}
        # bounds on integers the graph computes for Python (trace/python_numbers.py):
        # id(node) -> (node, largest magnitude); the loop-value rules read them
        # (`hits += np.count_nonzero(m)` moves a carried int by at most m.size)
        self.int_bounds = {}
        self._outer = None
        # a loop body handed its loop variable as a 0-d array (trace/loop_values.py):
        # the variable's leaf nodes, and the generators' states before the body drew
        self.loop_values = None
        self.loop_spec = None
        self._rng_states = []
        # a loop of this call learnt only now that it runs as written (its body refused
        # its loop variable): the next call traces it so, and may replay; this one's
        # refusal to replay is not kept
        self.loops_settling = False
        # the function's own code runs eagerly on its plain arguments, its loops compiled
        # on their own (api/jit.py's loops path): nothing outside them is recorded
        self.loops_only = False
        # arrays NumPy writes as the code runs (arguments of a dtype not traced): an error
        # NumPy raises by value is then checked where it is raised, not at the flush
        # (trace/ufunc_rules._negative_powers)
        self.untraced_arrays = False

    # ----- activation -------------------------------------------------------
    def __enter__(self):
        self._outer = current()
        _set_current(self)
        creation.enter()
        return self

    def __exit__(self, *exc):
        _set_current(self._outer)
        return False

    def suspended(self):
        """NumPy code run by npcompile itself (eager fallbacks, the executor) must not be
        traced: the creation-function wrappers see no tracer."""
        return _Suspended()

    # ----- making lazy arrays -------------------------------------------------
    def wrap_input(self, array, name, snapshot=False):
        """A user ndarray enters the trace: a leaf whose storage writes back into it.
        `snapshot`: an array the user's code holds as an ndarray (a global, np.array of a
        literal, what an untraced function made), which plain NumPy may write before the
        graph runs (`a = np.array([1., 2.]); b = x * a; a[0] = 5.0`: b read 5.0). A copy
        of its values of now is kept beside the leaf, and the graph reads the copy where
        they changed (flush)."""
        st = Storage(Node.leaf(array, name or "input"), target=array, name=name)
        if snapshot and type(array) is np.ndarray and array.nbytes <= SNAPSHOT_MAX and \
                len(self._snapshots) < MAX_SNAPSHOTS and \
                self._snapshot_bytes + array.nbytes <= SNAPSHOTS_BYTES and \
                (array.flags.writeable or array.base is not None):
            copy = array.copy(order="K")
            if copy.strides == array.strides:   # the kernels read it by the leaf's strides
                self._snapshots[id(st.base)] = self._touched[id(st.base)] = (st.base, copy)
                self._snapshot_bytes += copy.nbytes
        owner = _memory_owner(array)
        for other in self._overlapping(array, owner):
            other.aliased = st.aliased = True
        self._add_target(st, owner)
        return self._register(_la.LazyArray(st, (), st.base))

    def made_here(self, array):
        """`array`, made by the trace from Python values alone (see self.made)."""
        if type(array) is np.ndarray and len(self.made) < 1024:
            self.made[id(array)] = array
        return array

    def wrap_constant_array(self, array, name=None, private=False):
        """An ndarray met during tracing (a global, a closure): traced as a leaf too. The
        same ndarray as a traced one is that traced array (its pending writes included);
        memory that a pending write will change is flushed first, so the leaf reads the
        values NumPy would read now. `private`: an array the trace made and hands the
        user only as this leaf (a random draw): plain NumPy cannot write it, and it
        needs no copy of its values (a copy and a compare of each draw took a Monte
        Carlo loop 3 ms per batch)."""
        ref = self._by_array.get(id(array))
        st = ref() if ref is not None else None
        if st is not None and st.target is array:
            base = st.base
            snap = self._snapshots.get(id(base)) if base.is_leaf else None
            if snap is None or _same_bytes(snap[1], array):
                if snap is not None:
                    self._touched[id(base)] = snap
                return self._register(_la.LazyArray(st, (), base if base.is_leaf else None))
            # plain NumPy wrote it since its copy was taken: a new leaf of its values now
            # (what was computed from the old one reads the copy)
        for other in self._dirty.values():
            if other.target is not None and not other.base.is_leaf and \
                    overlaps(other.target, array):
                self.graph_break("alias", "an array read here shares memory with a traced "
                                          "array that has pending in-place writes")
                break
        return self.wrap_input(array, name, snapshot=not private)

    # ----- the user's arrays, by identity and memory owner ------------------------------
    def _add_target(self, st, key):
        """Index a storage that writes back into st.target, whose memory owner is `key`
        (weakly: once no lazy array reaches it and its writes are flushed, it is
        forgotten)."""
        ref = weakref.ref(st)
        self._by_array[id(st.target)] = ref
        if key is None:
            self._exotic.append(ref)
        else:
            bucket = self._regions.get(key)
            if bucket is None:
                self._regions[key] = [ref]
            else:
                bucket.append(ref)
        self._targets_size += 1
        if self._targets_size > 2 * self._targets_live + 64:
            self._forget_dead_targets()

    def _forget_dead_targets(self):
        live = 0
        for key, bucket in list(self._regions.items()):
            bucket[:] = [r for r in bucket if r() is not None]
            if bucket:
                live += len(bucket)
            else:
                del self._regions[key]
        self._exotic[:] = [r for r in self._exotic if r() is not None]
        live += len(self._exotic)
        for k, r in list(self._by_array.items()):
            if r() is None:
                del self._by_array[k]
        self._targets_live = live
        self._targets_size = live

    def _overlapping(self, array, key):
        """The live target storages whose memory may overlap `array`'s (owner `key`)."""
        if key is None:  # unknown owner: every target may hold it
            buckets = list(self._regions.values())
        else:
            bucket = self._regions.get(key)
            buckets = [bucket] if bucket else []
        if self._exotic:
            buckets.append(self._exotic)
        found = []
        for bucket in buckets:
            dead = False
            for r in bucket:
                st = r()
                if st is None:
                    dead = True
                elif overlaps(st.target, array):
                    found.append(st)
            if dead:
                bucket[:] = [r for r in bucket if r() is not None]
        return found

    @property
    def targets(self):
        """The live storages that write back into a user's (or an eager result's) array."""
        out = []
        for bucket in list(self._regions.values()) + [self._exotic]:
            for r in bucket:
                st = r()
                if st is not None:
                    out.append(st)
        return out

    def make(self, fn, args, kwargs, inputs, dtype, shape, label, scalar=False):
        if dtype is not None:
            _refuse_untraced(dtype, label)
        node = Node(fn, args, kwargs, inputs, dtype, shape, label, user_site())
        self.note_op(label)
        return self._register(_la.LazyArray(Storage(node), (), node, scalar))

    def make_multi(self, fn, args, kwargs, inputs, dtypes, shape, label, scalar=False):
        """A NumPy call with several outputs (divmod, modf, frexp): one tuple node and a
        getitem node per output. `shape`: the outputs' shape, or a list of one per
        output (np.histogram's counts and edges). `scalar`: its 0-d outputs are NumPy
        scalars (np.linalg.slogdet of one matrix, np.unravel_index of one index)."""
        import operator
        shapes = shape if isinstance(shape, list) else [shape] * len(dtypes)
        for dt in dtypes:       # before the tuple node: a refused output records nothing
            _refuse_untraced(dt, label)
        tup = Node(fn, args, kwargs, inputs, None, shapes[0], label, user_site())
        self.note_op(label)
        return tuple(self.make(operator.getitem, (Ref(0), i), None, (tup,), dt, shp,
                               f"{label}[{i}]", scalar=scalar and shp == ())
                     for i, (dt, shp) in enumerate(zip(dtypes, shapes)))

    def _register(self, lazy):
        self.lazies.append(weakref.ref(lazy))
        return lazy

    # ----- the op budget (trace/budget.py) -------------------------------------------
    def note_op(self, label):
        """One op recorded (the C++ recorder appends to self.ops itself, and calls
        over_budget past the same limit)."""
        ops = self.ops
        ops.append(label)
        if budget.LIMIT is not None and len(ops) > budget.LIMIT:
            self.over_budget()

    def over_budget(self, reason=None, retry=False):
        """The trace has outgrown the budget (of ops, or `reason`: of graph breaks): end
        it (TraceBudgetExceeded) when the call can run again from its start, else trace
        on with nothing more compiled (past the break budget, on the CPU: run the rest
        untraced)."""
        if self.options.get("fullgraph"):
            return  # the compiled path was asked for, at any cost
        if self.budget_reason is None:
            site = user_site()
            where = f" at line {site[1]}" if site else ""
            self.budget_reason = reason or (
                f"the trace passed {budget.LIMIT} ops{where}: a Python loop unrolls into it "
                f"(its body reads the loop index, or breaks the graph every iteration), and "
                f"compiling that costs more than NumPy spends running it")
            self.budget_retry = retry
            self.reference_only = True
            self.restarting = self.irreversible is None and self.can_restart is not None \
                and self.can_restart()
        if self.restarting:
            raise self.budget_exceeded()
        if reason is not None and self.options.get("device", "cpu") == "cpu" and \
                current() is self:
            # over the break budget right after a flush (nothing pending): the rest of
            # the call runs as plain NumPy, untraced. Traced on, each later break costs
            # what it did before (a trace and a flush per iteration, 50x NumPy); the lazy
            # arrays left work as NumPy values (trace/lazy_array._dispatch with no
            # tracer), and writes into the user's arrays land directly (flushed inputs
            # are their own storage). A GPU call keeps tracing: its values are device
            # arrays NumPy does not take
            self.untraced_rest = True
            _set_current(None)

    def budget_exceeded(self):
        """The exception that ends this trace past its budget."""
        return budget.TraceBudgetExceeded(self.budget_reason, self.budget_retry)

    def compile_deadline(self):
        """perf_counter() past which a compile under way stops (budget.COMPILE_LIMIT_MS
        less what this call has spent), or None."""
        limit = budget.COMPILE_LIMIT_MS
        if limit is None or self.options.get("fullgraph"):
            return None
        return time.perf_counter() + max(limit - self.compile_ms, 0.0) / 1e3

    def spent_compiling(self, ms):
        """A graph of this call was compiled in `ms`: past the compile budget the rest of
        the call runs uncompiled (what is compiled stays cached for the next call). The
        reason, once, when that happens; else None."""
        self.compile_ms += ms
        limit = budget.COMPILE_LIMIT_MS
        if limit is None or self.reference_only or self.compile_ms <= limit or \
                self.options.get("fullgraph"):
            return None
        self.reference_only = True
        site = user_site()
        where = f" at line {site[1]}" if site else ""
        return (f"compile budget: this call spent {self.compile_ms / 1e3:.1f} s compiling"
                f"{where}, so the rest of it ran in NumPy; what was compiled is kept, and "
                f"the next call compiles on from there (NPC_COMPILE_BUDGET_MS)")

    def mark_irreversible(self, what):
        """Something happened that running the call again would repeat."""
        if self.irreversible is None:
            self.irreversible = what

    # ----- graph breaks ------------------------------------------------------------
    def graph_break(self, kind, reason, recorded=False, where=None):
        """Record a break at the user's line (`where`: breaks.user_where() of the line
        that made what breaks now); under fullgraph raise instead. Then flush.
        recorded: the caller records what happens at the break as a step (trace/steps.py)"""
        rec = BreakRecord(kind, reason, user_frame(2), where)
        if not recorded and self.unrecorded is None:
            self.unrecorded = reason
        if self.options.get("fullgraph"):
            raise GraphBreakError(rec)
        if self.loop_values is not None:
            self.refuse_loop_values(f"its body breaks the graph ({reason})")
        self.breaks.append(rec)
        self.engine.record_break(self, rec)
        self.flushed_elements = 0
        compiled = self.compile_ms
        self.flush()
        new_graph = self.compile_ms > compiled
        if self.flushed_elements < budget.SMALL_ELEMENTS or \
                (new_graph and self.flushed_elements < budget.COMPILING_ELEMENTS):
            self.small_breaks += 1
            # one that compiled a new graph counts four: a graph per iteration (a
            # constant that moves with the loop, `np.cos(1.2 * t)`, a shrinking
            # `A[k + 1:, k + 1:]`) is 10-20 ms a break
            self.break_weight += 4 if new_graph else 1
            if budget.BREAK_LIMIT is not None and self.break_weight >= budget.BREAK_LIMIT \
                    and 4 * self.small_breaks >= 3 * len(self.breaks):
                self.over_budget(
                    f"the call broke the graph {len(self.breaks)} times"
                    f"{f' (last at line {rec.lineno})' if rec.lineno else ''}, on "
                    f"arrays of fewer than {budget.SMALL_ELEMENTS} elements or with a graph "
                    f"compiled anew ({rec.reason}): each break costs a trace and a lookup "
                    f"(a compile, for a new graph) that NumPy does not pay, and kernels "
                    f"that small cannot win it back",
                    retry=2 * self.small_breaks < budget.BREAK_LIMIT)
        return rec

    def recording(self):
        """Does this call record its steps (trace/steps.py)? Not where no plan can come
        of it, nor past the most a plan takes (trace/steps.too_many)."""
        if self.steps_wanted and len(self.steps) > _steps.MAX_READS:
            why = self.too_many_steps()
            if why is not None:
                self.steps_wanted = False
                if self.unrecorded is None:
                    self.unrecorded = why
        return self.steps_wanted

    def too_many_steps(self):
        """Why this call's steps are more than a plan takes, or None (trace/steps.py;
        the reads among them are counted once, as the steps grow)."""
        return _steps.too_many(self.steps, self._steps_counted)

    def note_direct(self, node, order):
        """`node` is about to be computed straight from concrete arrays (lazy_array
        _read_directly): what it computes, for the read that follows (a step)."""
        if self.steps_wanted:
            self._direct = (node, _steps.expression(order))

    def read_at_break(self, lz, value):
        """Python read `value` out of `lz` at a break (a step, trace/steps.py)."""
        step = _steps.read_step(lz, value) if self.recording() else None
        if step is not None:
            self.steps.append(step)
        elif self.unrecorded is None:
            self.unrecorded = "a value read at a break"

    def eager(self, fn, args, kwargs, kind, reason, where=None, breaks=True):
        """Run one NumPy call eagerly on concrete values (a graph break), and trace on
        from its results. breaks=False: the call's last step, after the function
        returned (nothing is traced after it), made after the graph ran, not a break."""
        if breaks:
            self.graph_break(kind, reason, recorded=True, where=where)
        else:
            self.flush()
        cargs = concretize(args)
        ckwargs = concretize(kwargs) if kwargs else {}
        with self.suspended():
            result = fn(*cargs, **ckwargs)
        step = _steps.eager_step(fn, args, kwargs, cargs, ckwargs, result) \
            if self.recording() else "not recorded"
        if type(step) is str:
            if self.unrecorded is None:
                self.unrecorded = f"{reason}: {step}"
        else:
            self.steps.append(step)
        pairs = []
        _pairs(args, cargs, pairs)
        if kwargs:
            _pairs(kwargs, ckwargs, pairs)
        return self.rewrap(result, pairs)

    def rewrap(self, result, pairs=()):
        """Arrays returned by eager NumPy become leaves, so tracing continues from them.
        `pairs`: (lazy array or None, concrete array) for each array argument of the call."""
        if type(result) is np.ndarray and traced_dtype(result.dtype):
            # The result may be an argument itself (out=, a function that returns its
            # input) or a view of one (np.diagonal): keep its aliasing visible to the
            # in-place checks.
            for lz, a in pairs:
                if a is result:
                    return lz if lz is not None else self._lazy_for_array(a)
            st = Storage(Node.leaf(result, "eager result"), target=result)
            for lz, a in pairs:
                if np.may_share_memory(a, result):
                    st.aliased = True
                    if lz is not None:  # also a graph-made array, which is no target
                        lz._st.aliased = True
            owner = _memory_owner(result)
            for t in self._overlapping(result, owner):
                t.aliased = st.aliased = True
            self._add_target(st, owner)
            return self._register(_la.LazyArray(st, (), st.base))
        if type(result) is tuple:
            return tuple(self.rewrap(r, pairs) for r in result)
        if type(result) is list:
            return [self.rewrap(r, pairs) for r in result]
        return result

    def _lazy_for_array(self, array):
        ref = self._by_array.get(id(array))
        st = ref() if ref is not None else None
        if st is not None and st.target is array:
            return self._register(_la.LazyArray(st, (), st.base if st.base.is_leaf else None))
        return self.rewrap(array)

    # ----- a loop variable taken as a NumPy scalar (trace/loop_values.py) -------------
    def take_loop_values(self, spec, wargs):
        """The body's loop values (its variable, carried Python numbers) come in as
        0-d lazy arrays, at spec.positions of its arguments `wargs`."""
        self.loop_values = [wargs[i]._n for i in spec.positions]
        self.loop_spec = spec
        for i in spec.positions:
            wargs[i]._scalar = True

    def keep_rng_state(self, generator):
        """A draw is about to be made (trace/random_rules.py): keep the generator's state
        (None: NumPy's global one), once, so that a refused body draws nothing."""
        if self.loop_values is None or any(g is generator for g, _ in self._rng_states):
            return
        state = np.random.get_state() if generator is None else generator.bit_generator.state
        self._rng_states.append((generator, state))

    def check_loop_values(self, result):
        """The body has run to its end, nothing computed yet: refuse it (undoing nothing
        but the draws) where its loop variable, a NumPy scalar here, is not what the
        Python int was; see trace/loop_values.py."""
        roots = [lz._n for lz in (r() for r in self.lazies) if lz is not None]
        roots += [st.base for st in self._dirty.values()]
        roots += [x._n for x in _lazies_in(result)]
        spec = self.loop_spec
        bounds = {k: spec.bounds[i] for k, i in enumerate(spec.positions) if i in spec.bounds}
        made, why = loop_values.derived(roots, self.loop_values, bounds)
        if why is None and loop_values.escapes(result, made, spec.returns):
            why = "its body hands back a number made from them"
        if why is not None:
            self.refuse_loop_values(why)

    def refuse_loop_values(self, why):
        """Nothing of the body runs: pending writes into the user's arrays are dropped,
        draws taken back; LoopValueRefused says why."""
        self._abandon([st for st in self._dirty.values() if not st.base.is_leaf])
        for generator, state in reversed(self._rng_states):
            if generator is None:
                np.random.set_state(state)
            else:
                generator.bit_generator.state = state
        self._rng_states = []
        self.draws = []
        raise loop_values.LoopValueRefused(why)

    def pending_targets(self):
        """The caller's arrays that the pending graph writes."""
        return [st.target for st in self._dirty.values()
                if st.target is not None and not st.base.is_leaf]

    def _abandon(self, pending):
        """A flush that raised NumPy's error is not run again: the user's arrays hold
        what eager NumPy wrote before the error (landed above), and a later flush (the
        error's own, as the call ends) ran the writes once more from those arrays
        (`b -= -3` thirteen times, then a negative power: b came out 78 higher, not 39)."""
        for st in pending:
            if st.target is not None:
                st.base = Node.leaf(st.target, st.name or "input")
                st.settle()
                self._dirty.pop(id(st), None)
        self.must_run = []

    def note_write(self, st):
        """An in-place write made a new version of st (inplace._write): the next flush
        computes it (and writes it back into st.target) even if no lazy array is left."""
        self._dirty[id(st)] = st

    def read_value(self, reason, lz=None, value=None):
        """Python read the values of an array that was concrete already (an argument):
        no graph break, but what the call does now depends on those values, so a later
        call must not replay this one's graph (api/replay.py), unless it reads them
        again: `lz`, read as `value`, is a step (trace/steps.py)."""
        if lz is not None and self.recording():
            direct = self._direct
            self._direct = None
            step = _steps.read_step(lz, value, direct[1] if direct is not None
                                    and direct[0] is lz._n else None)
            if step is not None:
                self.steps.append(step)
                self.recorded_reads += 1
        self.value_reads += 1
        if self.value_read_reason is None:
            self.value_read_reason = reason

    # ----- flush -------------------------------------------------------------------
    def value_as_read(self, leaf):
        """The values the graph read from a leaf: its copy where it has one (see
        wrap_input), which plain NumPy cannot have written since."""
        got = self._snapshots.get(id(leaf))
        return got[1] if got is not None and got[0] is leaf else leaf.value

    @contextlib.contextmanager
    def _values_when_read(self):
        """Leaves whose arrays plain NumPy wrote after they entered the trace hold their
        copies of then while the graph runs, and their arrays again after (a view or a
        return of the leaf is the user's array itself). Where nothing was written, as
        almost always, nothing changes."""
        swapped = []
        touched, self._touched = self._touched, {}
        for leaf, copy in touched.values():
            if leaf.is_leaf and not _same_bytes(copy, leaf.value):
                swapped.append((leaf, leaf.value))
                leaf.value = copy
        try:
            yield
        finally:
            for leaf, value in swapped:
                leaf.value = value

    def flush(self):
        """Compute everything pending that is still referenced, once, and write the new
        values of traced inputs back into the user's arrays. Only lazy arrays made since
        the last flush, and those over storages written since then, can be pending: the
        others hold concrete values already and are not looked at."""
        new = self.lazies
        n_new = len(new)
        dirty = self._dirty
        settled = self._settled
        work = []       # lazy arrays to settle
        refs = []       # and their weak references
        storages = {}
        for r in new:
            lz = r()
            if lz is not None:
                work.append(lz)
                refs.append(r)
                st = lz._st
                storages[id(st)] = st
        if dirty:
            for sid, st in dirty.items():
                if st.target is not None:  # a write into the user's memory must land
                    storages[sid] = st
                for r in settled.get(sid, ()):
                    lz = r()
                    if lz is not None and lz._st is st:
                        work.append(lz)
                        refs.append(r)
                        storages[sid] = st
        pending = [st for st in storages.values() if not st.base.is_leaf]
        if pending:
            outputs = []
            seen = set()
            for st in pending:
                if id(st.base) not in seen:
                    seen.add(id(st.base))
                    outputs.append(st.base)
            # A view decided on an assumed layout needs NumPy's own layouts to settle:
            # those graphs run on the reference path (see storage.guessed).
            exact = any(st.guessed for st in pending)
            n_runs = len(self.runs)
            try:
                with self._values_when_read():
                    values = self.engine.run(self, outputs, exact_layout=exact)
            except Exception as e:
                computed = getattr(e, "npc_partial", None)
                _land_writes_before(pending, computed)
                if computed:
                    # what eager NumPy computed before its error keeps those values:
                    # computed again later (the call's last flush), `t1 = np.minimum(7,
                    # b)` re-ran the write it reads, into b's own memory
                    for node in outputs:
                        value = computed.get(id(node))
                        if value is not None and not node.is_leaf:
                            node.make_concrete(value)
                self._abandon(pending)
                raise
            ran = len(self.runs) > n_runs
            for node, value in zip(outputs, values):
                node.make_concrete(value)
                size = getattr(value, "size", 0)
                if size > self.flushed_elements:
                    self.flushed_elements = size
            self.flush_index += 1
        # Computed: from here on nothing can fail half-way, so the bookkeeping moves on.
        self.lazies = new[n_new:]  # (nothing records while the engine runs; kept anyway)
        self.must_run = []
        if dirty:
            self._dirty = {}
            for sid in dirty:
                settled.pop(sid, None)
        written = len(self.writebacks)
        for st in pending:
            if st.target is not None:
                if self.irreversible is None:
                    self.irreversible = "an in-place write reached an array outside the trace"
                self.writebacks.append((st.base, st.target))
                value = st.base.value
                if value is not st.target:
                    np.copyto(st.target, value, casting="unsafe")
                st.base = Node.leaf(st.target, st.name or "input")
            st.settle()
        if pending and self.steps_wanted:
            self.steps.append((_steps.GRAPH, len(self.runs) - 1 if ran else None, written,
                               len(self.writebacks)))
        if len(pending) != len(storages):
            for st in storages.values():
                # a layout is guessed only on a pending base: the others keep their own
                if st.guessed or (st.fake is not None and not st.fake_is_real):
                    st.settle()
        for lz, r in zip(work, refs):
            lz._settle()
            sid = id(lz._st)
            on = settled.get(sid)
            if on is None:
                settled[sid] = [r]
            else:
                on.append(r)
                n = len(on)
                if n >= 8 and not n & (n - 1):  # at 8, 16, 32, ...: drop the dead ones
                    on[:] = [x for x in on if x() is not None]
        if len(settled) > 2 * self._settled_size + 64:
            self._forget_dead_lazies()

    def _forget_dead_lazies(self):
        settled = self._settled
        for sid, on in list(settled.items()):
            on[:] = [r for r in on if r() is not None]
            if not on:
                del settled[sid]
        self._settled_size = len(settled)


class _Suspended:
    """No tracer while npcompile runs NumPy itself (a class: a generator-based context
    manager costs a microsecond on every cached call)."""

    __slots__ = ("saved",)

    def __enter__(self):
        self.saved = current()
        _set_current(None)
        return self

    def __exit__(self, *exc):
        _set_current(self.saved)
        return False


def _pairs(orig, conc, out):
    """(lazy array or None, concrete ndarray) for the arrays among a call's arguments, as
    concretize() turned `orig` into `conc`."""
    t = type(orig)
    if t is _la.LazyArray:
        if type(conc) is np.ndarray:
            out.append((orig, conc))
    elif t is np.ndarray:
        out.append((None, orig))
    elif t is tuple or t is list:
        for o, c in zip(orig, conc):
            _pairs(o, c, out)
    elif t is dict:
        for k, o in orig.items():
            _pairs(o, conc[k], out)


def _memory_owner(array):
    """A key shared by every array that may overlap `array`'s memory, or None where that
    is not known (memory from a buffer object: such arrays are checked against all).
    An ndarray's owner is the end of its .base chain when that owns its data: two
    arrays with different owners cannot overlap."""
    if type(array) is not np.ndarray:  # a DeviceArray: memory is its device buffer's
        buf = getattr(array, "buffer", None)
        return None if buf is None else ("device", id(buf))
    r = array
    while True:
        b = r.base
        if b is None:
            return id(r) if r.flags.owndata else None
        if not isinstance(b, np.ndarray):
            inner = getattr(b, "base", None)  # np.lib.stride_tricks.as_strided's DummyArray
            if type(b).__name__ == "DummyArray" and isinstance(inner, np.ndarray):
                b = inner
            else:
                return None
        r = b


def _lazies_in(v):
    """The lazy arrays in a body's result (a tuple of its values)."""
    if type(v) in (tuple, list):
        return [x for item in v for x in _lazies_in(item)]
    return [v] if type(v) is _la.LazyArray else []
