"""Captured graphs by structure and guards: hit, first compile, or recompile with the
guard that failed, in words."""
from ..trace_core import core
from . import number_inputs
from .signature import collect, guarded_meta, leaf_meta, ops_key


class Entry:
    __slots__ = ("graph_id", "compiled", "hits")

    def __init__(self, graph_id, compiled=None):
        self.graph_id = graph_id
        self.compiled = compiled
        self.hits = 0


class SiteState:
    """What one call site (function or cell, and which of its graphs) saw last time."""

    __slots__ = ("metas", "ops", "dynamic", "last")

    def __init__(self):
        self.metas = None
        self.ops = None
        self.dynamic = {}
        self.last = None  # (fingerprint, entry) of the last lookup when it was a hit


class GraphCache:
    def __init__(self):
        self.entries = {}
        self.sites = {}
        # entry key -> the call sites (site_key[0]) that looked it up, and the other way
        # round: an entry no live function uses is dropped, and with it its program and
        # machine code (found from the function, not by a walk over every entry)
        self.owners = {}
        self.looked_up = {}
        self.sites_of = {}   # site_key[0] -> its site keys (one per flush of a call)
        # site_key[0] -> {graph with its changing numbers masked: (its ops when first
        # seen, the positions of the numbers made inputs since)}
        self.numbers = {}
        self.next_id = 1

    def clear(self):
        self.entries.clear()
        self.sites.clear()
        self.owners.clear()
        self.looked_up.clear()
        self.sites_of.clear()
        self.numbers.clear()

    def lookup_graph(self, site_key, outputs, dynamic_option, numbers=False):
        """The graph computing outputs, looked up: -> (leaves, pending, entry or None, key,
        status, reasons). A graph whose C++ fingerprint equals its site's last hit is that
        hit again (its key and guards are equal by construction); anything else builds the
        key in Python and goes through lookup(). With numbers, the numbers that change
        from one of the function's graphs to the next are made inputs
        (graph/number_inputs.py): the leaves returned then include theirs."""
        got = core.collect_graph(outputs) if core is not None else None
        if got is not None:
            leaves, pending, fp = got
            state = self.sites.get(site_key)
            if fp is not None and state is not None and state.last is not None \
                    and state.last[0] == fp:
                entry = state.last[1]
                entry.hits += 1
                return leaves, pending, entry, None, "hit", []
        else:
            leaves, pending = collect(outputs)
            fp = None
        ops = ops_key(leaves, pending, outputs)
        made, why = None, None
        shape = number_inputs.masked(ops) if numbers else None
        if shape is not None:
            # the same graph but for some numbers, flushed before by this function (at
            # another flush: one per iteration of a loop as written)
            seen = self.numbers.setdefault(site_key[0], {})
            first = seen.get(shape)     # (its ops when first seen, the numbers made inputs)
            where = ()
            if first is None:
                seen[shape] = (ops, ())
            elif first[0] != ops:
                now = number_inputs.changed(first[0], ops)
                where = number_inputs.merged(first[1], now)
                if where != first[1]:
                    why = f"a number of the graph changed " \
                          f"({number_inputs.described(first[0], ops, now)}): from now on " \
                          f"it is an input of the graph, one graph for every value"
            if where:
                made = number_inputs.as_inputs(pending, where)
                if made:
                    seen[shape] = (first[0], where)
                    leaves = leaves + made
                    ops = ops_key(leaves, pending, outputs)
        metas = [leaf_meta(leaf) for leaf in leaves]
        entry, key, status, reasons = self.lookup(site_key, metas, ops, dynamic_option)
        if made and why:
            reasons = [why]
        # lookup() made the state; the fingerprint stands for these metas and ops (not
        # for a graph whose keys were made inputs: that one is rewritten at every lookup)
        self.sites[site_key].last = (fp, entry) if fp is not None and entry is not None \
            and not made else None
        return leaves, pending, entry, key, status, reasons

    def lookup(self, site_key, metas, ops, dynamic_option):
        """-> (entry or None, key, status, reasons). status: hit | compile | recompile.
        A site key's third part, where it has one, is the device the graph is compiled
        for: the same function jitted for the CPU and for CUDA (device="cuda"'s host
        path, api/path_choice.py) has the same graphs, and each its own programs."""
        state = self.sites.get(site_key)
        newly_dynamic = []
        if state is None:
            state = self.sites[site_key] = SiteState()
            self.sites_of.setdefault(site_key[0], set()).add(site_key)
            if dynamic_option is True:
                for i, m in enumerate(metas):
                    state.dynamic[i] = set(range(len(m[2])))
        elif dynamic_option is None and state.metas is not None and len(state.metas) == len(metas):
            for i, (old, new) in enumerate(zip(state.metas, metas)):
                if old[1] == new[1] and len(old[2]) == len(new[2]):
                    dyn = state.dynamic.setdefault(i, set())
                    for d, (a, b) in enumerate(zip(old[2], new[2])):
                        if a != b and d not in dyn and b >= 2:
                            dyn.add(d)
                            newly_dynamic.append((i, d))
        key = (ops, tuple(guarded_meta(m, state.dynamic.get(i)) for i, m in enumerate(metas)),
               site_key[2:])
        self.owners.setdefault(key, set()).add(site_key[0])
        self.looked_up.setdefault(site_key[0], set()).add(key)
        entry = self.entries.get(key)
        reasons = []
        if entry is not None:
            entry.hits += 1
            status = "hit"
        elif state.metas is None:
            status = "compile"
        else:
            status = "recompile"
            reasons = diff(state.metas, metas, state.ops, ops, newly_dynamic, dynamic_option)
        state.metas = metas
        state.ops = ops
        return entry, key, status, reasons

    def forget(self, site_key):
        """Drop what a call site's graphs saw (its function was freed), and the compiled
        graphs no other site looked up."""
        self.numbers.pop(site_key, None)
        for k in self.sites_of.pop(site_key, ()):
            self.sites.pop(k, None)
        for key in self.looked_up.pop(site_key, ()):
            owners = self.owners.get(key)
            if owners is not None:
                owners.discard(site_key)
                if not owners:
                    del self.owners[key]
                    self.entries.pop(key, None)

    def insert(self, key, compiled=None):
        entry = Entry(self.next_id, compiled)
        self.next_id += 1
        self.entries[key] = entry
        return entry


def diff(old_metas, new_metas, old_ops, new_ops, newly_dynamic, dynamic_option):
    """The failed guards in words: 'x: dtype float64 -> float32', 'x: shape[0] 10 -> 20,
    now dynamic', 'constant 2 -> 3 in multiply'."""
    out = []
    dyn = set(newly_dynamic)
    pairs = list(enumerate(zip(old_metas, new_metas)))
    if [m[0] for m in old_metas] != [m[0] for m in new_metas]:
        # inputs came or went: compared by position, every later input was said to have
        # changed into the one after it ("acc_count: ndim 2 -> 0"); by name instead
        old_by, new_by = _by_name(old_metas), _by_name(new_metas)
        pairs = [(new_by[n][0], (old_by[n][1], new_by[n][1])) for n in new_by if n in old_by]
        out += [f"new input {n}" for n in new_by if n not in old_by]
        out += [f"input {n} no longer read" for n in old_by if n not in new_by]
    for i, (a, b) in pairs:
        name = b[0]
        if a[1] != b[1]:
            out.append(f"{name}: dtype {a[1]} -> {b[1]}")
        if len(a[2]) != len(b[2]):
            out.append(f"{name}: ndim {len(a[2])} -> {len(b[2])}")
        else:
            for d, (x, y) in enumerate(zip(a[2], b[2])):
                if x != y:
                    if (i, d) in dyn:
                        tail = ", now dynamic"
                    elif dynamic_option is False:
                        tail = " (dynamic=False: static shapes)"
                    else:
                        tail = ""
                    out.append(f"{name}: shape[{d}] {x} -> {y}{tail}")
        if a[3] != b[3]:
            out.append(f"{name}: layout {a[3]} -> {b[3]}")
    if len(old_metas) != len(new_metas):
        out.append(f"number of input arrays {len(old_metas)} -> {len(new_metas)}")
    if _without_dtypes(old_ops) != _without_dtypes(new_ops):  # dtypes follow the inputs'
        out.append(_ops_diff(old_ops, new_ops))
    return out or ["guards changed"]


def _by_name(metas):
    """{input name: (position, meta)} of each name's first input."""
    out = {}
    for i, m in enumerate(metas):
        out.setdefault(m[0], (i, m))
    return out


def _without_dtypes(ops):
    return tuple(op[:-1] for op in ops[0]), ops[1]


def _ops_diff(old, new):
    old_ops, new_ops = old[0], new[0]
    for a, b in zip(old_ops, new_ops):
        if a == b:
            continue
        if a[1] == b[1] and a[2] == b[2] and a[3] != b[3]:
            return f"constant changed in {b[1]}: {_consts(a[3])} -> {_consts(b[3])}"
        if a[1] != b[1]:
            return f"graph changed: {a[1]} -> {b[1]}"
        return f"graph changed at {b[1]}"
    if len(old_ops) != len(new_ops):
        return f"graph changed: {len(old_ops)} -> {len(new_ops)} operations"
    return "graph outputs changed"


def _consts(frozen):
    vals = []
    for v in frozen[1:] if type(frozen) is tuple else (frozen,):
        if type(v) is tuple and v and v[0] == "f":
            vals.append(repr(float.fromhex(v[1])))
        elif type(v) is tuple and v and v[0] == "r":
            continue
        else:
            vals.append(repr(v))
    return ", ".join(vals)
