"""Runs a loop that api/loop_rewrite.py turned into a body function. The values the loop
reads are computed (the graph before the loop is flushed), the body is jitted once, and
each iteration is one call of it: the first traces and compiles, the others run that
compiled body again (api/replay.py's plan, looked up by the carried values' layouts)
without running its Python. Compile cost no longer grows with the number of
iterations, and the report says so per loop ("line 12: 800 iterations, one compiled
body").

Where replaying cannot work the loop goes on as before, traced into the surrounding
graph: the body reads Python values that change per iteration (a carried float), its
call could not be replayed (a graph break, an effect outside the graph), or it carries
a value that is not an array. A carried number that the first iteration makes an array
(`b = 0.0` before `b -= lr * np.mean(g)`) costs only that iteration: it is traced as
written, and the rest run the compiled body. The runner declines outright (the original loop then
runs) when no trace is running, the iterable is not a range of at least LOOP_MIN
steps, or a name the body reads is not bound yet. Each iteration is exactly one run of
the body, so whatever it does happens as often, and in the same order, as in the
user's loop."""
import contextlib
import sys
import weakref

import numpy as np

from ..exec.engine import ENGINE
from ..graph.node import contains
from ..trace.lazy_array import LazyArray
from ..trace.loop_values import LoopValueRefused, Spec
from ..trace.overlap import overlaps as overlaps_exactly
from ..dtypes import traced_dtype
from ..trace.tracer import concretize, current, is_traceable
from . import loop_picks, loop_sinks, loop_step, native_loop
from .loop_rewrite import IndexedSite
from .purity import Watch
from .replay import _NotNow, _overlap, arg_key, build, loop_feeds, loop_until

# Below this many iterations the loop is traced into the surrounding graph as written:
# a short loop fuses with the code around it, and costs little to compile.
LOOP_MIN = 8
# A statement or two over this few moving windows is a filter's taps (`tmp += w[i] *
# pad[:, i:i + nx]`): traced as written, its iterations fuse into one pass over the data
# (a 13-tap blur ran 8x faster so than one compiled body run per tap). A longer body (a
# mini-batch's gradient step) is compiled once.
WINDOW_TAPS = 32
# A while loop's body may write out inner range loops (loop_rewrite._while) up to this
# many iterations in all: each is a few kernels more to compile (a 38-row SOR sweep's
# body, 460 ops, took 0.5-1.4 s), so a longer sweep runs as written, a compiled body of
# its own entered once per iteration of the while loop.
WRITE_OUT = 24
# A loop that is both a body compiled once and a scalar loop nest runs as the nest where
# no array it touches has more elements than this (prefer_native): per iteration the
# body's replay costs microseconds and the nest's loop nanoseconds. Time loops of 1-d
# stencils on 2 cores, nest / body: 41 points 0.32 / 1.18 ms (500 steps), 1000 points
# 1.10 / 1.64 ms, 10,000 points 4.8 / 2.9 ms (200 steps, the body's fused kernels on
# both cores, the nest's overlapping store through a temporary)
NEST_PREFERRED_ELEMENTS = 1 << 12
# A matrix the loop reads only in products (`A @ p`: native_loop.products_only) leaves
# the nest preferred up to this many elements: a product's work is the same in the nest
# as in BLAS, where elementwise work over that many is the body's kernels on every core
NEST_PRODUCT_ELEMENTS = 1 << 18
# An indexed loop's views are made at once (_views_at_once) for at most this many
# iterations (a view object each); a longer loop makes them one iteration at a time
VIEWS_AT_ONCE = 1 << 16


def _elements_only(indexed, arrays):
    """Does each array an element walk subscripts take as many indices as it has
    dimensions (its elements), the others being lists or tuples? (`X[i]` of a matrix is
    a row: array work, which the trace takes.)"""
    if arrays is None:
        return False
    for (name, k), v in zip(indexed.items(), arrays):
        if type(v) in (np.ndarray, LazyArray):
            if v.ndim != k:
                return False
        elif type(v) not in (list, tuple):
            return False
    return True


class LoopRunner:
    """The `__npc_loop__` of one rewritten function: (index, iterable, argument tuple)
    -> None (run the original loop) or (last loop value, values the body bound)."""

    # what the body functions call for min(a, b) and max(a, b) (a default argument)
    pick = staticmethod(loop_picks.pick)
    # what a body's `if`s made selects call (api/loop_selects.py)
    choose = staticmethod(loop_picks.choose)

    @staticmethod
    def indexable(*seqs):
        """Is a loop over these (api/loop_iterables.py) one over arrays by index?"""
        return all(type(x) in (np.ndarray, LazyArray) and x.ndim >= 1 for x in seqs)
    # a split loop's tests and branches (api/loop_split.py) take this for a name the
    # loop's values do not hold: they unbind it, as the loop as written has it
    unbound = object()

    def __init__(self, sites, owner, jit_class):
        self.sites = sites
        self.owner = owner      # the outer Jitted (or cell): its device and name
        self.jit_class = jit_class   # api/jit.Jitted, handed in: jit.py imports this module
        self.jits = {}          # (loop index, scalar positions) -> (step, body) Jitteds
        self.reported = set()   # (loop index, iterations, how) already in the report
        self._plain = {}        # untraced loop index -> {id(value): (value, lazy array)}
        self._exited = {}       # while loop index -> did its exit test end it (exited())

    def __call__(self, index, it, args):
        tracer = current()
        if tracer is None or args is None or _too_short(it):
            return None
        site = self.sites[index]
        if site.value_refused:
            return None         # found on an earlier call: the loop as written
        if self._writes_out_too_much(site, args, "loop"):
            return None
        args, fed = loop_sinks.feed(site.sinks, args)
        if fed is None:
            return None         # a sink's target is not a list or a number
        carry = [site.params.index(c) for c in site.carry]
        if _lazy_inside(args):
            return None         # lazy arrays inside a container: traced as written
        if isinstance(site, IndexedSite) and (
                not _array_work(site, it, args) or (site.taps and len(it) <= WINDOW_TAPS)):
            return None
        n = len(it)
        peeled = 0
        numbers = {(j, type(args[j])) for j in carry if not _carried(args[j])}
        if numbers and numbers <= site.numbers_stay and self._takes_numbers():
            pass    # numbers found to stay numbers at an earlier entry: no peel
        elif numbers:
            # A carried number: `b = 0.0` before `b -= lr * np.sum(g)` is an array from
            # the first iteration on, so that one is traced as written and the others
            # run the compiled body. One that stays a Python number (`t += dt`) goes in
            # as a loop value (trace/loop_values.py); anything else would make a graph
            # per value: the whole loop is traced as written.
            args = list(args)
            _as_written(site, args, carry, 0, 1, it, fed)
            peeled = 1
            if _lazy_inside(args) or \
                    any(not _carried(args[j]) and not (_number(args[j]) and
                                                        self._takes_numbers())
                        for j in carry):
                return it[-1], tuple(_as_written(site, args, carry, 1, n, it, fed)) + \
                    fed.result()
            # (the next entry skips the peel: pendulum_rk2's inner time loop, entered
            # 30 times a call with `t += dt` carried, traced an iteration at each entry)
            site.numbers_stay |= {(j, t) for j, t in numbers if type(args[j]) is t}
        state, lazies = _take_over(tracer, site, args, fed, read=False)
        given = list(state)
        done, out, graphs, native = self._replayed(site, state, carry, it[peeled:], fed)
        if site.value_refused:
            tracer.loops_settling = True    # as written from the next call on
        self._report(site, n, graphs, done + peeled, peeled, native)
        if done < n - peeled:
            loop_step.refused(tracer, site.lineno, "some of its iterations ran as written")
        elif site.sinks is not None:
            loop_step.refused(tracer, site.lineno, "a list it appends to")
        else:
            # (a peeled first iteration is part of the call's graph: the step is the rest)
            loop_step.record(tracer, self, index, it[peeled:], args, given, out, site.lineno)
        if done < n - peeled:
            # the body could not be replayed: the rest of the loop is traced as written
            # into the surrounding graph, from the values it has reached
            values = [_rejoin(tracer, v, lazies, name) for v, name in zip(state, site.params)]
            rest = it[peeled:]
            return it[-1], tuple(_as_written(site, values, carry, done, len(rest), rest,
                                             fed)) + fed.result()
        # what the loop leaves behind goes on being traced: an array the body was given
        # is that traced array again, any other joins the trace as a leaf
        return it[-1], tuple(_rejoin(tracer, v, lazies, name)
                             for v, name in zip(out, site.binds)) + fed.result()

    def untraced(self, index, it, arrays=()):
        """The context a data-bounded loop (loop_rewrite.UntracedSite) runs in: plain
        NumPy with the trace suspended, everything pending computed first; the loop as
        written where no trace runs or it is short."""
        tracer = current()
        # (it None: a while loop of element code, loop_rewrite._element_walk)
        if tracer is None or (it is not None and (not hasattr(it, "__len__") or
                                                  len(it) < LOOP_MIN)) or \
                self.owner.options["device"] != "cpu":
            return contextlib.nullcontext()
        site = self.sites[index]
        if site.elements is not None and not _elements_only(site.elements, arrays):
            return contextlib.nullcontext()     # rows, not elements: traced as before
        tracer.flush()
        # its writes land in the arrays themselves: the call cannot start again, and its
        # next run must run this loop again (no replay of the call as a whole)
        tracer.mark_irreversible(f"its loop at line {site.lineno} ran as plain NumPy")
        tracer.read_value(f"its loop at line {site.lineno} ran as plain NumPy")
        if site.elements is not None:
            what = (f"{'a while loop' if it is None else f'{len(it)} iterations'} as plain "
                    f"NumPy, untraced: element code that breaks the graph at every iteration")
        else:
            what = (f"{len(it)} iterations as plain NumPy, untraced: its slice bounds are "
                    f"read from array elements, so each iteration is a graph of its own "
                    f"shape, and which shapes depends on the data")
        self._note_once((index, None if it is None else len(it), "untraced"), site,
                        None if it is None else len(it), what)
        return tracer.suspended()

    def plain(self, index, value):
        """A traced array's value, for untraced loop `index` (loop_rewrite's
        _plain_names): the NumPy array itself, whose writes are the lazy array's (its
        value is a leaf since the flush untraced() made). lazy_again() hands the lazy
        array back after the loop, where the name still holds that array."""
        if type(value) is not LazyArray:
            return value
        got = value._value()
        if type(got) is np.ndarray:     # (a Python number stays one)
            self._plain.setdefault(index, {})[id(got)] = (got, value)
        return got

    def lazy_again(self, index, value):
        kept = self._plain.get(index, {}).get(id(value))
        return kept[1] if kept is not None and kept[0] is value else value

    def plain_done(self, index):
        self._plain.pop(index, None)

    def _note_once(self, key, site, iterations, what, graph_id=-1):
        """The report's line for a loop that ran no compiled body of its own ("line N:
        `what`"), once per key: a loop entered at every call says it once."""
        if key in self.reported:
            return
        self.reported.add(key)
        native_loop.report_loop({
            "graph_id": graph_id, "function": self.owner._site_name, "lineno": site.lineno,
            "text": site.text, "iterations": iterations, "kernel": "",
            "summary": f"line {site.lineno}: {what}"})

    def _takes_numbers(self):
        """Do carried Python numbers go into a body as loop values? On the CPU (a GPU
        body would hand them back as device arrays)."""
        return self.owner.options["device"] == "cpu"

    def prefer_native(self, index, args):
        """Does a loop that is both a body compiled once and a scalar loop nest run as
        the nest (loop_rewrite._by_size)? Where every array it reads or writes is small
        (NEST_PREFERRED_ELEMENTS), on the CPU."""
        if self.owner.options["device"] != "cpu":
            return False
        site = self.sites[index]
        rows = site.row_sweep
        # an array read by rows only (native_loop.row_sweep) is a row per iteration: the
        # body's replay costs microseconds per row, the nest's loop nanoseconds (a Thomas
        # sweep over 500 systems: 199 replays, 2x NumPy's time)
        # (no array at all: a loop of numbers, `a, b = b, a + b`, whose nest is C++ ints)
        products = site.products_only
        return all(a.size <= (NEST_PRODUCT_ELEMENTS if name in products else
                              NEST_PREFERRED_ELEMENTS * (max(a.shape[0], 1) if name in rows
                                                         else 1))
                   for name, a in zip(site.params, args) if type(a) in (np.ndarray, LazyArray))

    def native(self, index, args):
        """A loop nest of scalar code (api/native_loop.py): what it bound, or None."""
        return native_loop.run(self.sites[index], args, self.owner._site_name,
                               small=lambda: self.prefer_native(index, args), short=LOOP_MIN)

    def _replayed(self, site, state, carry, values, fed):
        """(iterations run, the last one's values, graph ids of the body, how many of them
        ran in one C++ loop) by calling the compiled body for the loop values `values`;
        stops early (fewer than all) where a
        call had to be traced and made no plan to replay, or an index view failed."""
        return _on_its_own(lambda: self._iterations(site, state, carry, values, fed))

    def _iterations(self, site, state, carry, values, fed):
        out, graphs, traced, n, native = (), [], 0, len(values), 0
        numbers_here = self._takes_numbers()
        replay = _Replays()
        indexed = isinstance(site, IndexedSite)
        names = site.call_names if indexed else site.params
        # a loop variable read as a number: its values lie in [0, bound] (or are
        # negative: -1), by powers of two (trace/loop_values.py)
        bound = -1 if n == 0 or min(values[0], values[-1]) < 0 else \
            (1 << max(values[0], values[-1]).bit_length()) - 1
        i = 0
        while i < n:
            if i < n - 1 and replay.settled is not None:
                # the body's plan is settled: the iterations before the last run in C++
                # (the values its sinks hand Python are collected per iteration)
                try:
                    probe = site.call_args(values[i], state) if indexed else state
                except Exception:   # NumPy's error, raised where the loop as written does
                    return i, (), graphs, native
                scalars, numbers = _scalars(names, site.carry, probe, numbers_here)
                done = replay.run_many(self._jits(site, scalars, bound, numbers)[0], site,
                                       state, carry, values[i:], fed, scalars, numbers)
                if done:
                    i += done
                    native += done
                    continue
            if indexed:
                try:
                    args = site.call_args(values[i], state)
                except Exception:   # NumPy's error, raised where the loop as written does
                    return i, (), graphs, native
            else:
                args = state
            scalars, numbers = _scalars(names, site.carry, args, numbers_here)
            step, body = self._jits(site, scalars, bound, numbers)
            jit = step if i < n - 1 else body
            out, replayed = replay(jit, args, scalars + numbers)
            if not replayed:
                if jit is step:
                    traced += 1
                    if traced > 2:
                        # traced twice, still no plan: as written from the next call on
                        # too, where the call as a whole may then replay
                        site.value_refused = site.value_refused or \
                            "its body cannot be replayed (a graph break or an effect " \
                            "outside the graph)"
                        return i, (), graphs, native
                if jit.value_refused:
                    return i, (), graphs, native
                try:
                    out = _traced(jit, args, scalars + numbers, fed)
                except LoopValueRefused as e:   # nothing of it ran: traced as written
                    # (the step refused: every later run of the loop as written; the last
                    # iteration's body, which hands back more: that iteration only)
                    jit.value_refused = site.refusal = str(e)
                    if jit is step:
                        site.value_refused = jit.value_refused
                    return i, (), graphs, native
                if not graphs:
                    graphs = list(jit.last_graph_ids)
            out = fed.take(out, {names[j] for j in scalars})
            out = _as_scalars(names, site.carry, out,
                              site.carry if i < n - 1 else site.binds, scalars, numbers)
            if i < n - 1:
                for j, v in zip(carry, out):
                    state[j] = v
            i += 1
        return n, out, graphs, native

    def _writes_out_too_much(self, site, args, what):
        """Would a body compiled once write out more inner loop iterations than
        WRITE_OUT (site.span: their count from the values before the loop)? Then the loop
        runs as written, each inner loop a compiled body of its own (said once)."""
        if site.span is None:
            return False
        try:
            span = site.span(*args[:len(site.params)])
        except Exception:   # NumPy's or Python's error: raised where the loop does
            return True
        site.written_out = span
        if span <= WRITE_OUT:
            return False
        self._note_once((site.index, span, "write out"), site, None,
                        f"the {what} runs as written: its inner loops take {span} "
                        f"iterations, more than the {WRITE_OUT} a body compiled once writes "
                        f"out; each of them is a compiled body of its own")
        return True

    def whiles(self, index, args):
        """A `while` loop (WhileSite): its values after it, () when the body never ran,
        or None (the original loop runs) when no trace is running or a name is unbound."""
        tracer = current()
        if tracer is None or args is None:
            return None
        site = self.sites[index]
        if self._writes_out_too_much(site, args, "while loop"):
            return None
        args, fed = loop_sinks.feed(site.sinks, args)
        if fed is None or _lazy_inside(args):
            return None
        values, last, n = list(args), (), 0
        self._exited[index] = False
        if not site.numbers_settle and _numbers_read(site, values):
            # a carried Python number the body reads (`lam_old = lam` before `lam = v @
            # A @ v`): the first iteration runs as written; one that stays a number, all
            # of them. One only the condition reads (`while res > tol` with `res = np.inf`
            # before it) is not the body's argument: the compiled body takes over at once.
            # Where the first iteration made them NumPy's, later calls run it compiled
            # too, the number an argument by value (one plan for `lam = 1.0`): the trace
            # of an iteration was a fifth of a small solver's call
            while site.cond(*values):
                last = _step(site, values, _written(site.body, _body_args(site, values), fed))
                n += 1
                if _exit_held(site, values, last):
                    self._exited[index] = True
                    return _bound(site, values, last, n, tracer, loop_sinks.ByIdentity(), fed)
                if not _numbers_read(site, values):
                    site.numbers_settle = n == 1
                    break
            else:
                return _bound(site, values, last, n, tracer, loop_sinks.ByIdentity(), fed)
        state, lazies = _take_over(tracer, site, values, fed, read=False)
        given = list(state)
        ran, out, graphs, native = _on_its_own(
            lambda: self._while_iterations(site, state, fed))
        if ran:
            self._report(site, n + ran, graphs, n + ran, 1 if n else 0, native)
        # (iterations run as written before it are part of the call's graph: the step
        # is the loop from the values they reached)
        if site.sinks is None:
            loop_step.record_while(tracer, self, index, values, given, ran,
                                   self._exited[index], _bound_raw(site, state, out)
                                   if ran else (), site.lineno)
        else:
            loop_step.refused(tracer, site.lineno, "a list it appends to")
        return _bound(site, state, out if ran else [concretize(v) for v in last], n + ran,
                      tracer, lazies, fed)

    def exit_again(self, site, it, state, fed):
        """A `for` loop with a convergence test run again from its start on concrete
        values (a replay of the call, api/loop_step.py): (its last value, whether the
        test held, what it binds)."""
        i, env, _, hit, _ = self._exit_iterations(site, state, len(it), fed)
        return it[i], hit, [env[name] for name in site.binds]

    def while_again(self, site, state, fed):
        """A while loop run again from its start on concrete values (a replay of the
        call, api/loop_step.py): (iterations, their last values, what it binds)."""
        self._exited[site.index] = False
        ran, out, _, _ = self._while_iterations(site, state, fed)
        return ran, out, _bound_raw(site, state, out) if ran else ()

    def exits(self, index, it, args):
        """A `for` loop with a convergence test (ExitSite): (the loop variable's last
        value, what the loop bound, whether the test held), or None to run it as written."""
        tracer = current()
        if tracer is None or args is None or _too_short(it):
            return None
        site = self.sites[index]
        args, fed = loop_sinks.feed(site.sinks, args)
        if fed is None or _lazy_inside(args):
            return None
        def numbers(args):
            return any(not _carries(args, site, name) for name in site.carry)
        peeled = 0
        if numbers(args):
            # A carried Python number, `ll_old = -np.inf` before `if ll - ll_old < tol:
            # break` and `ll_old = ll`: in the body it would be a graph per value. The
            # first iteration runs as written, into the surrounding graph; from the
            # second on the number is what the body made (an array or a NumPy scalar),
            # which the compiled body takes. One that stays a number: all as written.
            env = dict(zip(site.params, args))
            i, hit = _exit_as_written(site, env, it, 0, 1, fed)
            args = [env[p] for p in site.params]
            if not hit and len(it) > 1 and (_lazy_inside(args) or numbers(args)):
                i, hit = _exit_as_written(site, env, it, 1, len(it), fed)
            if hit or i == len(it) - 1:
                return it[i], tuple(env[name] for name in site.binds) + fed.result(), hit
            peeled = 1
        state, lazies = _take_over(tracer, site, args, fed, read=False)
        given = list(state)
        i, env, graphs, hit, native = _on_its_own(
            lambda: self._exit_iterations(site, state, len(it) - peeled, fed))
        self._report(site, i + 1 + peeled, graphs, i + 1 + peeled, peeled, native)
        # (a peeled first iteration is part of the call's graph: the step is the rest)
        if site.sinks is None:
            loop_step.record_exit(tracer, self, index, it[peeled:], args, given,
                                  it[i + peeled], hit, [env[name] for name in site.binds],
                                  site.lineno)
        else:
            loop_step.refused(tracer, site.lineno, "a list it appends to")
        return it[i + peeled], tuple(_rejoin(tracer, env[name], lazies, name)
                                     for name in site.binds) + fed.result(), hit

    def _exit_iterations(self, site, state, n, fed):
        env, graphs, replay = dict(zip(site.params, state)), [], _Replays()
        i, hit, native = 0, [False], 0
        made = len(site.made)

        def after(out):     # one run's Python part: the test, then the renames
            env.update(zip(site.made, out))
            # the body's last value is TEST where the body computes it (site.tested)
            if (out[made] if len(out) > made else
                    site.test(*[env[name] for name in site.test_reads])):
                hit[0] = True
                return False
            env.update({target: env[source] for target, source in site.renames})
            return True
        while i < n:
            args = [env[p] for p in site.params]
            tested = site.tested is not None and site.test_outside is None
            returned = site.made + ["__npc_exit_test"] if tested else site.made

            def jit_for(sc):
                return self._jits(site, sc, tested=tested)[0]
            if replay.settled is not None and site.exit_next is not None:
                done, _ = self._until(jit_for, site.params, site.carry, args, returned,
                                      replay, after, site.exit_next, n - i, fed,
                                      _exit_reads(site, tested))
                i += done
                native += done
                if hit[0]:
                    break
                if done:
                    continue
            first = not graphs
            out, graphs = self._body_once(jit_for, site.params, site.carry, args, returned,
                                          graphs, replay, fed)
            if tested and first:
                _check_tested(site, jit_for, args)
            i += 1
            if not after(out):
                break
        return i - 1, env, graphs, hit[0], native

    def splits(self, index, it, local):
        """A `for` loop of segments and `if`s (api/loop_split.py): (the loop variable's
        last value, what the loop bound), or None to run it as written. `local`: the
        function's locals() at the loop."""
        tracer = current()
        if tracer is None or _too_short(it):
            return None
        site = self.sites[index]
        if any(b not in local for b in site.maybe) or self.owner.options["device"] != "cpu":
            # (on the GPU a branch would run NumPy on device arrays: as written there)
            return None
        names = [p for p in site.params if p in local]
        args = [local[p] for p in names]
        if _lazy_inside(args):
            return None
        state, lazies = _take_over(tracer, site, args, loop_sinks.Fed(None, []), read=False)
        given = list(state)
        env = dict(zip(names, state))
        graphs, parts, native = _on_its_own(lambda: self._split_iterations(site, env, it))
        n = len(it)
        self._note_once(
            (index, n, "split"), site, n, f"{n} iterations; " + (
                f"its {parts} straight-line part(s) compiled once, its if statements run in "
                f"Python" if parts else "its if statements and their branches run as plain "
                "NumPy (nothing outside them to compile)") + (
                f"; {native} of them in one C++ loop" if native else ""),
            graphs[0] if graphs else -1)
        out = tuple(env[name] for name in site.binds)
        loop_step.record_split(tracer, self, index, it, names, args, given, out, site.lineno)
        return it[-1], tuple(_rejoin(tracer, v, lazies, name) for v, name in zip(out, site.binds))

    def split_again(self, index, it, names, values):
        """A replay of a split loop (api/loop_step.py): what it binds, run on `values`."""
        site = self.sites[index]
        env = dict(zip(names, values))
        self._split_iterations(site, env, it)
        return tuple(env[name] for name in site.binds)

    def _split_iterations(self, site, env, it):
        replays = [_Replays() for _ in site.items]
        graphs, items, var = [], site.items, site.var
        fed = loop_sinks.Fed(None, [])      # (a split loop has no sinks)
        segments = [k for k, item in enumerate(items) if item.kind == "segment"]
        # one segment, then only ifs (a time step, then `if n % every == 0: keep u`):
        # once settled, the segment runs in the C++ loop and its ifs after each run
        lead = items[0] if segments == [0] else None
        i, n, native = 0, len(it), 0
        refused = None      # the settled plan the C++ loop could not take (not asked again)
        while i < n:
            env[var] = it[i]
            if lead is not None and replays[0].settled is not None and \
                    replays[0].settled is not refused:
                done = self._split_in_cpp(site, lead, env, it, i, replays[0], fed)
                if done:
                    i += done
                    native += done
                    continue
                # (a segment handing back views of its outputs, `pa = perm[:na]`: asked
                # at every iteration, 10 us each, permutation_test)
                refused = replays[0].settled
            for k, item in enumerate(items):
                if item.kind == "segment":
                    # every NumPy scalar it reads goes in as a 0-d array (one graph for
                    # every value), so all its parameters count as carried
                    out, graphs = self._body_once(
                        lambda sc, k=k: self._split_jit(site, k, sc), item.params,
                        item.params, [_bound_value(env, p) for p in item.params], item.binds,
                        graphs, replays[k], fed)
                    env.update(zip(item.binds, out))
                else:
                    self._branch(item, env)
            i += 1
        return graphs, len(segments), native

    def _branch(self, item, env):
        """An `if` of a split loop, on the loop's values `env`: the names its branch bound
        or wrote into (env updated with what it bound). Not every name its locals() hold:
        those it only read counted as rebound, and ended the C++ loop of the segment
        that reads them after every iteration (metropolis_chains: 143 of 150 runs of
        one iteration each)."""
        unbound = self.unbound
        if item.test(**{p: env.get(p, unbound) for p in item.test_reads}):
            fn, reads, writes = item.then, item.then_reads, item.then_writes
        elif item.orelse is not None:
            fn, reads, writes = item.orelse, item.orelse_reads, item.orelse_writes
        else:
            return ()
        made = [(name, v) for name, v in fn(**{p: env.get(p, unbound) for p in reads}).items()
                if name in reads]
        env.update(made)
        return [name for name, _ in made if name in writes]

    def _split_in_cpp(self, site, seg, env, it, i, replay, fed):
        """Iterations i.. of a split loop whose one segment comes first, in the C++ loop:
        after each run, its ifs in Python. A branch that rebinds what the segment reads
        ends the C++ loop after that iteration (its feeds would overwrite it). How many
        iterations ran."""
        n, var = len(it), site.var
        at = [i]

        def after(out):
            env.update(zip(seg.binds, out))
            rebound = False
            for item in site.items[1:]:
                rebound = any(name in seg.params for name in self._branch(item, env)) or rebound
            at[0] += 1
            if at[0] >= n:
                return False
            env[var] = it[at[0]]
            return not rebound
        args = [_bound_value(env, p) for p in seg.params]
        done, _ = self._until(lambda sc: self._split_jit(site, 0, sc), seg.params, seg.params,
                              args, seg.binds, replay, after, seg.next_of, n - i, fed)
        return done

    def _split_jit(self, site, k, scalars):
        """The Jitted of a split loop's k-th item (a segment), NumPy scalars at the
        positions `scalars` handed in as 0-d arrays."""
        got = self.jits.get((site.index, k, scalars))
        if got is None:
            got = self.jits[(site.index, k, scalars)] = self._body_jit(
                site.items[k].fn, f"part of the loop at line {site.lineno}", scalars)
        return got

    def _body_jit(self, fn, what, scalars, values=None):
        """A body function's Jitted (named for the report after the loop it is part
        of), scalars at the positions `scalars` handed in as 0-d arrays, those standing
        for Python numbers as `values` says (trace/loop_values.Spec)."""
        fn.__qualname__ = fn.__name__ = f"{self.owner._site_name} ({what})"
        j = self.jit_class(fn, device=self.owner.options["device"], choose=False, loops=False)
        j.loop_body = True
        j.scalar_positions = frozenset(scalars)
        j.loop_values = values
        return j

    def _while_iterations(self, site, state, fed):
        out, graphs, n, replay, native = [()], [], 0, _Replays(), 0

        def after(got):     # one run's Python part: the loop's values, TEST, then COND
            out[0] = _step(site, state, got)
            if _exit_held(site, state, got):
                self._exited[site.index] = True
                return False
            return site.cond(*state)
        go = site.cond(*state)
        while go:
            args = _body_args(site, state)
            if replay.settled is not None:
                done, go = self._until(lambda sc: self._jits(site, sc)[0], site.body_params,
                                       site.carry, args, site.binds, replay, after,
                                       site.while_next, _UNBOUNDED, fed, _while_reads(site))
                n += done
                native += done
                if done:
                    continue
            got, graphs = self._body_once(lambda sc: self._jits(site, sc)[0],
                                          site.body_params, site.carry, args, site.binds,
                                          graphs, replay, fed)
            out[0] = _step(site, state, got)
            n += 1
            if _exit_held(site, state, got):
                self._exited[site.index] = True
                break
            go = site.cond(*state)
        return n, out[0], graphs, native

    def exited(self, index):
        """Did the last run of while loop `index` end at its exit test (`if TEST: ...;
        break`)? Its glue then runs what came before the break."""
        return self._exited.pop(index, False)

    def _until(self, jit_for, names, carry, args, returned, replay, after, next_of, bound,
               fed, reads=None):
        """Up to `bound` runs of a loop's settled body (jit_for(scalar positions): its
        Jitted) in one C++ loop, after(the values it returned, as _body_once hands them)
        deciding after each whether to go on: (runs, whether the last answer was to go
        on); (0, True) where they cannot run so. Carried NumPy scalars (those of `carry`)
        go round the loop as the 0-d arrays the body takes and makes."""
        scalars = _scalars(names, carry, args)

        def taken(got):
            return after(_as_scalars(names, carry, fed.take(got, {names[j] for j in scalars}),
                                     returned, scalars))
        # after() reads the names `reads` from its own state besides the values handed
        # to it (None: any name): an array the runs write must be up to date there
        read = None if reads is None else {k for k, name in enumerate(names) if name in reads}
        return replay.run_until(jit_for(scalars), _with_scalars(args, scalars), next_of, taken,
                                bound, read)

    def _body_once(self, jit_for, names, carry, args, returned, graphs, replay, fed):
        """One run of a body compiled once for every iteration (a while or exit loop's,
        a split loop's part; jit_for(scalar positions): its Jitted): what it returned
        (carried NumPy scalars, those of `carry`, as NumPy has them; its sinks' values to
        Python), and the graphs of its first trace."""
        scalars = _scalars(names, carry, args)
        jit = jit_for(scalars)
        out, replayed = replay(jit, args, scalars)
        if not replayed:
            out = _traced(jit, args, scalars, fed)
            graphs = graphs or list(jit.last_graph_ids)
        out = fed.take(out, {names[j] for j in scalars})
        return _as_scalars(names, carry, out, returned, scalars), graphs

    def _jits(self, site, scalars=(), bound=0, numbers=(), tested=False):
        """(the step's Jitted, the last iteration's Jitted) of a loop, whose arguments
        at the positions `scalars` are NumPy scalars or (`numbers`, a `for` loop's) Python
        numbers handed in as 0-d arrays, and whose loop variable, where read as a number,
        is never negative or may be (trace/loop_values.py)."""
        value_at = getattr(site, "value_at", None)
        key = (site.index, scalars, bound if value_at is not None else 0, numbers, tested)
        got = self.jits.get(key)
        if got is None:
            if tested:      # an exit loop's body that computes its test too
                bodies = ((site.tested, "loop", site.binds),)
            elif site.step is None:
                bodies = ((site.body, "loop", site.binds),)
            else:
                bodies = ((site.step, "loop", site.carry),
                          (site.body, "last iteration of the loop", site.binds))
            names = site.call_names if isinstance(site, IndexedSite) else site.params
            values = numbers + ((value_at,) if value_at is not None else ())
            got = self.jits[key] = tuple(
                self._body_jit(fn, f"{what} at line {site.lineno}", scalars + numbers,
                               Spec(values, {value_at: bound} if bound >= 0 and value_at is not None
                                    else None,
                                    [k for k, b in enumerate(returned)
                                     if b in names and names.index(b) in numbers])
                               if values else None)
                for fn, what, returned in bodies)
        return got

    def _report(self, site, n, graphs, done, peeled=0, native=0):
        how = "body" if done == n else "unrolled"
        key = (site.index, n, how)
        if key in self.reported:
            return
        self.reported.add(key)
        if done == n:
            summary = f"line {site.lineno}: {n} iterations, one compiled body" + (
                f" (graph {graphs[0]})" if len(graphs) == 1 else
                f" ({len(graphs)} graphs: its graph breaks)" if graphs else
                " (nothing compiled: no NumPy work in it)") + (
                f", {native} of them in one C++ loop" if native else "") + (
                "; the first iteration was traced as written (it settles the type of a "
                "carried number)" if peeled else "") + (
                f"; its inner loops' {site.written_out} iterations are written out in it"
                if getattr(site, "written_out", 0) else "") + (
                f"; {site.selects} in it made selects" if getattr(site, "selects", "")
                else "") + _exit_test_note(site)
        elif site.refusal:
            summary = (f"line {site.lineno}: {n} iterations; the body could not take its "
                       f"numbers (its loop variable, numbers carried from one iteration to "
                       f"the next) as inputs: {site.refusal}; so {n - done} of them were "
                       f"traced as written")
        else:
            summary = (f"line {site.lineno}: {n} iterations; the body could not be run "
                       f"again without its Python (a graph break or an effect outside "
                       f"the graph), so {n - done} of them were traced as written")
        rec = {"graph_id": graphs[0] if graphs else -1, "function": self.owner._site_name,
               "lineno": site.lineno, "text": site.text, "iterations": n,
               # what the reports show as "compiled once as"
               "kernel": (f"its body, graph {graphs[0]}" if done == n and graphs else ""),
               "summary": summary}
        native_loop.report_loop(rec)


def _exit_test_note(site):
    """Where an exit loop's test ran, in the loop's summary."""
    if getattr(site, "tested", None) is None:
        return ""
    if site.test_outside is None:
        return "; its exit test computed by the body"
    return f"; its exit test in Python ({site.test_outside})"


def _too_short(it):
    """Not a range of LOOP_MIN iterations or more: the loop runs as written."""
    return type(it) is not range or len(it) < LOOP_MIN


def _array_work(site, it, args):
    """Does an indexed body work on arrays? Picking elements only (`C[i, j] = A[i, j] *
    2`), each iteration is a few scalar operations, far cheaper as Python than as a
    compiled call: such a loop is traced as written (or runs as a native nest)."""
    try:
        call = site.call_args(it[0], args)
    except Exception:
        return False        # the loop as written raises NumPy's error
    return any(_is_array(v) and np.ndim(v) > 0 for v in call)


def _lazy_inside(args):
    """Lazy arrays inside a container among the loop's values: traced as written."""
    return any(type(a) is not LazyArray and _holds_lazy(a) for a in args)


def _take_over(tracer, site, args, fed, read=True):
    """The loop's values made concrete, for a body compiled on its own: (state, the lazy
    array each concrete value came from; the sinks' targets concrete too, and an array
    handed to them that came from a lazy array is that lazy array again). read=False:
    the caller says what a replay of the call does with the loop (api/loop_step.py)."""
    tracer.flush()
    tracer.mark_irreversible(f"its loop at line {site.lineno} ran compiled on its own")
    if read:
        # the call's next run must run this loop again: no replay of the call as a whole
        tracer.read_value(f"its loop at line {site.lineno} runs as a body compiled on "
                          f"its own")
    # only the lazy arrays themselves become their values: a list the body appends to
    # must stay the caller's list
    state = [concretize(a) if type(a) is LazyArray else a for a in args]
    lazies = loop_sinks.ByIdentity((v, a) for a, v in zip(args, state) if type(a) is LazyArray)
    fed.lazies = lazies
    fed.targets = [concretize(t) if type(t) is LazyArray else t for t in fed.targets]
    return state, lazies


def _on_its_own(run):
    """run() with the surrounding trace suspended: the watch on the whole call
    (api/purity.py) would hide the body's own watch, which decides whether the body
    replays; the call as a whole does not replay."""
    if current() is None:       # a replay of the call (api/loop_step.py): no trace
        return run()
    hook = sys.getprofile()
    mine = type(getattr(hook, "__self__", None)) is Watch
    if mine:
        sys.setprofile(None)
    try:
        with current().suspended():
            return run()
    finally:
        if mine:
            sys.setprofile(hook)


def _plan_of(jit, args, scalars):
    """(the replay plan a body's jit keeps for these arguments or None, their key, the
    values it indexes); carried scalars at positions `scalars` go in as 0-d arrays."""
    key, values = arg_key(tuple(_with_scalars(args, scalars)), None)
    return (jit._plans.get(key) if key is not None else None), key, values


def _check_tested(site, jit_for, args):
    """After the first traced run of a body that computes its exit test: its replay
    plan must hand the test back as a value the graph computed. A test Python computed
    from numbers would be a constant of the plan (the same answer at every run), and a
    body without a plan gains nothing: TEST goes back to Python, as written, from the
    next run on (this run's answer, traced, is right either way)."""
    sc = _scalars(site.params, site.carry, args)
    jit = jit_for(sc)
    plan, key, _ = _plan_of(jit, args, sc)
    if plan is None:
        site.test_outside = jit.replay_refusals.get(key, "the body makes no plan")
    elif plan.template[0] != 3 or plan.template[1][-1][0] != 0:
        site.test_outside = "the test is not computed by the body's graph"


def _scalars(params, carry, args, numbers=None):
    """Positions among a body's arguments of carried NumPy scalars (`b -= lr *
    np.mean(g)`): they go in as 0-d arrays that the body's trace treats as scalars,
    inputs of the compiled body rather than constants baked into a new graph at every
    value. With `numbers`: (those, the positions of carried Python numbers, `t += dt`,
    which go in so too, as loop values: trace/loop_values.py)."""
    at = [params.index(c) for c in carry if c in params]
    scalars = tuple(p for p in at if isinstance(args[p], np.generic))
    if numbers is None:
        return scalars
    return scalars, tuple(p for p in at if numbers and _number(args[p]))


def _carried(v):
    """Can a body compiled once take this carried value as it is: an array, or a NumPy
    scalar (a 0-d array in, _scalars)?"""
    return _is_array(v) or (isinstance(v, np.generic) and traced_dtype(v.dtype))


def _number(v):
    """A Python number a 0-d array of bool, int64, float64 or complex128 holds."""
    t = type(v)
    return t is float or t is complex or (t is int and -2**63 <= v < 2**63)


# The 0-d arrays _with_scalars made for carried NumPy scalars, by id while they live: a
# body that hands one back under another name (`lam_old = lam`, lam_old not its
# argument) hands NumPy's scalar back, not the 0-d array it was given (_as_scalars)
_ZERO_D = weakref.WeakValueDictionary()


def _with_scalars(state, scalars):
    if not scalars:
        return state
    out = list(state)
    for j in scalars:
        if j < len(out):
            out[j] = a = np.array(out[j])
            _ZERO_D[id(a)] = a
    return out


class _Replays:
    """The compiled body's runs over one run of a loop: (the body's values, True) from
    its plan, or (None, False) to trace it.

    Once two iterations in a row ran the same plan, its arguments' layouts no longer
    change: what the body is handed next is what that plan returned (same layouts for
    the same inputs' layouts), the rest of the loop's values, or views made alike (same
    base, same key). So the plan is run from then on without describing the arguments
    again (its guards are still checked: a while loop's test is user code): each
    iteration cost about 30 us of Python, several times a small body's kernels."""

    __slots__ = ("last", "fast", "checked", "settled")

    def __init__(self):
        self.last = None    # (jit, plan) of the iteration before
        self.fast = None    # (jit, plan) run without a key
        self.settled = None  # (jit, plan) that ran twice in a row (carried scalars too)
        self.checked = None  # the arrays the fast plan last found not to overlap

    def __call__(self, jit, args, scalars):
        fast = self.fast
        if fast is not None and fast[0] is jit and not scalars and \
                fast[1].holds(jit.fn, ENGINE.generation):   # a while test may run anything
            plan = fast[1]
            # the same array objects as the iteration before (a body updating its
            # arrays in place) need no overlap check again: 3 may_share_memory calls
            # per iteration were a third of a small body's cost
            mine = [args[i] for i in plan.overlap_positions] if plan.writebacks else None
            seen = self.checked
            same = seen is not None and len(seen) == len(mine) and \
                all(a is b for a, b in zip(mine, seen))
            try:
                out = plan.run(args, checked=same)
            except Exception:   # aliased views now (_NotNow): described and tried again
                self.fast = self.checked = None
            else:
                self.checked = mine
                jit.record_replay(plan)
                return out, True
        plan, key, values = _plan_of(jit, args, scalars)
        if plan is not None and plan.holds(jit.fn, ENGINE.generation):
            try:
                out = plan.run(values)
            except (_NotNow, Exception):   # traced instead, as jit would
                jit.step_plan_missed(key, plan)
            else:
                jit.record_replay(plan)
                jit.step_plan_held(key)
                if self.last == (jit, plan):
                    self.settled = self.last
                    if not scalars:
                        self.fast = self.last
                self.last = (jit, plan)
                return out, True
        self.last = None
        return None, False


    def run_many(self, jit, site, state, carry, values, fed, scalars=(), numbers=()):
        """The iterations over loop values `values` but the last, in C++, with the
        settled plan (replay.loop_feeds says whether it can), `state` moved on with
        them: how many ran; 0 where they run one call each. An indexed loop's views
        (`y[t]`) are made per iteration by site.views; written arguments are checked for
        overlap per iteration where they can change. A run that fails (values NumPy must
        handle, overlapping views) ends them early: that iteration goes the usual way.
        Carried NumPy scalars (argument positions `scalars`) go round as 0-d arrays."""
        settled = self.settled
        if settled is None or settled[0] is not jit or \
                not settled[1].holds(jit.fn, ENGINE.generation):
            return 0
        plan = settled[1]
        indexed = isinstance(site, IndexedSite)
        at = site.body_at if indexed else range(len(state))
        where = {j: p for p, j in enumerate(at)}     # state position -> argument position
        sinks = fed.sinks.count if fed.sinks is not None else 0
        spec = loop_feeds(plan, [where.get(j) for j in carry], sinks)
        if spec is None:
            return 0
        feeds, writes, collect, moves = spec
        views, view_pos = None, ()
        scalars += numbers
        args = _with_scalars([state[j] for j in at], scalars)
        n_args = len(site.call_names) if indexed else len(args)
        if plan.consts and n_args != plan.n_values:
            return 0
        if indexed:
            fixed = [state[j] for j in site.view_at]
            view_pos = range(len(args), len(site.call_names))
            args += [None] * len(view_pos)
            if len(view_pos) == 1 and site.value_at is not None:
                # the loop value alone: no view function to call (a third of a small
                # body's iteration)
                def views(k):
                    return (np.asarray(values[k]),)
            else:
                made = _views_at_once(site, values, fixed) if site.affine else None
                if made is not None:
                    views = made.__getitem__
                else:
                    make = site.made_views

                    def views(k):
                        try:
                            return make(values[k], fixed)
                        except Exception:   # NumPy's IndexError: raised where the loop does
                            return None
        # an indexed loop's views are not made yet: the first iteration's show their
        # itemsizes (the same at every iteration)
        checks = _overlap_checks(plan, args, writes, indexed or feeds or moves,
                                 lambda: site.call_args(values[0], state) if indexed else args)
        if checks is None:
            return 0
        overlaps, itemsizes = checks
        args += plan.consts         # after the arguments, where leaf_src finds them
        leaf_src, views, view_pos, itemsizes = _with_draws(plan, args, views, view_pos,
                                                           itemsizes)
        done, outs, collected, interrupted = plan.program.run_loop(
            args, leaf_src, len(values) - 1, feeds, writes, views, view_pos, overlaps,
            itemsizes, collect, moves=moves, exact=overlaps_exactly)
        jit.record_replay(plan)     # the kernel times of its timed runs
        for j in carry:
            v = args[where[j]]
            state[j] = _scalar(v, where[j], scalars, numbers) if \
                isinstance(v, (np.ndarray, np.generic)) and v.ndim == 0 else v
        pad = (None,) * len(carry)
        names = site.call_names if indexed else site.params
        scalar_names = {names[p] for p in scalars}
        for kept in collected:      # the sinks' Python part, per iteration, in order
            fed.take(pad + kept, scalar_names)
        if interrupted:
            raise KeyboardInterrupt
        return done


    def run_until(self, jit, args, next_of, after, bound, read=None):
        """Up to `bound` runs of the settled plan in one C++ loop while after(the values
        the body returned) says to go on (a while condition, an exit test, run in Python
        on each run's values): (how many ran, the last answer as a bool); (0, True) where
        it cannot run so. `args` are the body's arguments (moved on per run, next_of as
        for replay.loop_until); a run that fails ends it before that run, which then goes
        the usual way. read: the argument positions after() may read from its own state
        (None: any); StepProgram.run_loop may hand each run's new array to the next
        instead of copying it into the caller's where after() reads no written one."""
        settled = self.settled
        if settled is None or settled[0] is not jit or \
                not settled[1].holds(jit.fn, ENGINE.generation):
            return 0, True
        plan = settled[1]
        spec = loop_until(plan, next_of)
        if spec is None or (plan.consts and len(args) != plan.n_values):
            return 0, True
        feeds, writes, collect, sources, moves = spec
        checks = _overlap_checks(plan, args, writes, bool(feeds or moves), lambda: args)
        if checks is None:
            return 0, True
        overlaps, itemsizes = checks
        args = list(args) + plan.consts
        leaf_src, views, view_pos, itemsizes = _with_draws(plan, args, None, (), itemsizes)
        said = [True]

        def until(kept):
            said[0] = bool(after(tuple(kept[v] if k == 0 else args[v] if k == 1 else v
                                       for k, v in sources)))
            return said[0]
        # rebinding a written argument (StepProgram.run_loop) needs after() not to read
        # it: neither from its own state (read) nor handed to it (a sink may keep it)
        written = {a for _, a in writes}
        done, _, _, interrupted = plan.program.run_loop(
            args, leaf_src, bound, feeds, writes, views, view_pos, overlaps, itemsizes,
            collect, until, moves, exact=overlaps_exactly,
            rebind=read is not None and not (written & read) and
            not any(k == 1 and v in written for k, v in sources))
        jit.record_replay(plan)
        if interrupted:
            raise KeyboardInterrupt
        return done, said[0]


# a while loop's bound in C++: its condition, in Python, ends it
_UNBOUNDED = 1 << 62


def _views_at_once(site, values, fixed):
    """Every iteration's views of an indexed loop (site.affine), made at once: [(views of
    iteration k)], or None where they are not one stride apart at every iteration.
    Made per iteration by the views function, they were 5 us of a small body's 8 us in
    the C++ loop; here each is a view of one strided array over all of them. The
    affinity is checked at iterations 0, 1, 2 and the last: a negative index wrapping
    to the end (`u[i - 3]` at i < 3), a window clipped at an end, or an index past the
    end (IndexError) breaks it there, and the views are then made one at a time."""
    n = len(values)
    if type(values) is not range or not 4 <= n <= VIEWS_AT_ONCE:
        return None
    try:
        at = [site.made_views(values[k], fixed) for k in (0, 1, 2, n - 1)]
    except Exception:
        return None
    m = len(at[0]) - (site.value_at is not None)
    columns = []
    for j in range(m):
        v = [a[j] for a in at]
        v0 = v[0]
        if any(type(x) is not np.ndarray or x.shape != v0.shape or x.strides != v0.strides
               or x.dtype != v0.dtype or x.size == 0 for x in v):
            return None
        p = [x.__array_interface__["data"][0] for x in v]
        step = p[1] - p[0]
        if p[2] - p[1] != step or p[3] - p[0] != step * (n - 1):
            return None
        every = np.lib.stride_tricks.as_strided(v0, (n,) + v0.shape, (step,) + v0.strides)
        columns.append([every[k, ...] for k in range(n)])
    if site.value_at is not None:
        columns.append([np.asarray(v) for v in values])
    return list(zip(*columns))


def _with_draws(plan, args, views, view_pos, itemsizes):
    """(leaf_src, views, view_pos, itemsizes) for a C++ loop whose plan draws random
    numbers: the draws are made per run, in the plan's order and after the run's views
    (as Plan.run makes them, before its graph), into places appended to `args`."""
    if not plan.draws:
        return plan.leaf_src, views, view_pos, itemsizes
    draws, base = plan.draws, len(args)
    args += [None] * len(draws)
    leaf_src = [i if i >= 0 else base - 1 - i for i in plan.leaf_src]

    def made(k):
        got = () if views is None else views(k)
        if got is None:
            return None
        return list(got) + [fn(*a, **kw) if at is None else fn(args[at], *a, **kw)
                            for fn, at, a, kw in draws]
    if itemsizes is not None:
        itemsizes = itemsizes + [0] * len(draws)
    return leaf_src, made, list(view_pos) + list(range(base, base + len(draws))), itemsizes


def _overlap_checks(plan, args, writes, changing, probe):
    """(argument pairs checked for overlap at every run, itemsizes per argument) for a
    plan that writes into its arguments, or None where they overlap now. Arguments that
    a run may change (`changing`: fed outputs, an indexed loop's views) are checked per
    run; the others once, here. probe(): values with the arguments' dtypes."""
    n = len(args) + len(plan.consts)
    if not writes:
        return [], None
    if not changing:
        return None if _overlap(args, plan.arrays, plan.written) else ([], None)
    w = plan.written
    overlaps = [(a, b) for a in w for b in plan.arrays if b != a] + \
        [(a, b) for a in w for b in w if b > a]
    itemsizes = [getattr(getattr(v, "dtype", None), "itemsize", 0) for v in probe()]
    return overlaps, itemsizes + [0] * (n - len(itemsizes))


def _exit_reads(site, tested):
    """The names an exit loop's Python part reads from its own state: TEST's, unless
    the body computes it, and the renames' (a name bound to a written array)."""
    reads = set() if tested else set(site.test_reads)
    for target, source in site.renames:
        reads.update((target, source))
    return reads


def _while_reads(site):
    """The names a while loop's Python part reads from its state: COND's; any (None)
    where it has an exit test or sinks, which read more."""
    if site.exit is not None or site.sinks is not None:
        return None
    return site.cond_reads


def _bound_value(env, name):
    try:
        return env[name]
    except KeyError:
        raise UnboundLocalError(f"cannot access local variable '{name}' where it is not "
                                f"associated with a value") from None


def _traced(jit, state, scalars, fed):
    try:
        return jit.call_body(_with_scalars(state, scalars))
    except BaseException as e:
        fed.after_error(e, jit.fn)
        raise


def _exit_as_written(site, env, it, start, stop, fed):
    """Iterations start..stop-1 of an exit loop (ExitSite) traced as written into the
    surrounding graph, on its values `env` (moved on): (the last iteration's index,
    whether its test held)."""
    for i in range(start, stop):
        out = _written(site.body, [env[p] for p in site.params], fed)
        env.update(zip(site.made, out))
        if site.test(*[env[name] for name in site.test_reads]):
            return i, True
        env.update({target: env[source] for target, source in site.renames})
    return stop - 1, False


def _written(fn, args, fed):
    """A body function's call traced as written into the surrounding graph: what it
    returns for the loop, its sinks' values gone to Python."""
    try:
        out = fn(*args)
    except BaseException as e:
        fed.after_error(e, fn)
        raise
    return fed.take(out)


def _as_scalars(params, carry, out, names, scalars, numbers=()):
    """What NumPy has where a scalar went in as a 0-d array: a scalar (a Python number
    where one went in: `numbers`)."""
    if not scalars and not numbers:
        return out
    return tuple(_scalar(v, params.index(name), scalars, numbers)
                 if name in carry and name in params and
                 isinstance(v, (np.ndarray, np.generic)) and v.ndim == 0
                 else v[()] if type(v) is np.ndarray and v.ndim == 0 and
                 _ZERO_D.get(id(v)) is v and name in carry
                 else v for v, name in zip(out, names))


def _scalar(v, at, scalars, numbers):
    """A 0-d array (or the NumPy scalar a trace made of it) for a carried scalar."""
    return v.item() if at in numbers else v[()] if at in scalars else v


def _carries(values, site, name):
    v = values[site.params.index(name)]
    return _is_array(v) or isinstance(v, np.generic)


def _numbers_read(site, values):
    """Does a while body read a carried value that is a Python number now?"""
    return any(not _carries(values, site, name) for name in site.carry
               if name in site.body_params)


def _exit_held(site, values, out):
    """A while body's exit test (none: False) on the values after a run: what the body
    bound, then the loop's state."""
    if site.exit is None:
        return False
    return site.exit(*out[:len(site.binds)], *[values[i] for i in site.exit_at])


def _step(site, values, out):
    """A while body's values into the loop's state, then its counters: what it bound."""
    for k, i in site.bind_at:
        values[i] = out[k]
    at = site.counter_at
    for i, v in zip(at, site.count(*[values[i] for i in at])):
        values[i] = v
    return out


def _body_args(site, values):
    return [values[i] for i in site.body_at]


def _bound(site, values, last, n, tracer, lazies, fed):
    """What a while loop leaves bound: () when its body never ran (nothing rebinds)."""
    if n == 0:
        return ()
    got = _bound_raw(site, values, last)
    return tuple(_rejoin(tracer, v, lazies, name)
                 for v, name in zip(got, site.binds + site.counters)) + fed.result()


def _bound_raw(site, values, last):
    """A while loop's bound values (site.binds, then its counters) as the loop left
    them, before they rejoin the trace."""
    got = [values[site.params.index(b)] if b in site.params else v
           for b, v in zip(site.binds, last)]
    return got + [values[site.params.index(c)] for c in site.counters]


def _as_written(site, values, carry, start, stop, it, fed):
    """Iterations start..stop-1 of the loop over `it` traced as written into the
    surrounding graph (`values`, the body's arguments, move on with them): what the last
    one binds."""
    out, n = (), len(it)
    indexed = isinstance(site, IndexedSite)
    for i in range(start, stop):
        if indexed:
            out = _written(site.ostep if i < n - 1 else site.obody, list(values) + [it[i]],
                           fed)
        else:
            out = _written(site.wstep if i < n - 1 else site.wbody, values, fed)
        if i < n - 1:
            for j, v in zip(carry, out):
                values[j] = v
    return out


def _holds_lazy(v):
    # an x[mask] kept lazy (trace/masked_select.py) is part of the trace too
    return contains(v, lambda x: type(x) is LazyArray or getattr(type(x), "_npc_selected", False))


def _is_array(v):
    return type(v) is LazyArray or is_traceable(v)


def _rejoin(tracer, v, lazies, name):
    lz = lazies.get(v)
    if lz is not None:
        return lz
    if type(v).__name__ == "ndarray" and is_traceable(v) and not tracer.loops_only:
        return tracer.wrap_constant_array(v, name)
    return v
