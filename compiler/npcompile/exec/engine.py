"""Runs a flushed graph: cache lookup (hit, compile, recompile with reasons), execution,
and the records every report is made from."""
import time

from ..graph.cache import GraphCache
from ..graph.signature import collect, leaf_meta, ops_key
from ..records import SESSION
from . import reference


class SiteInfo:
    """Who is being traced: a jitted function or a cell, and the line that called it."""

    __slots__ = ("key", "function", "filename", "lineno")

    def __init__(self, key, function, filename, lineno):
        self.key = key
        self.function = function
        self.filename = filename
        self.lineno = lineno


class Engine:
    def __init__(self, session=SESSION):
        self.cache = GraphCache()
        self.session = session

    def reset(self):
        self.cache.clear()

    def record_break(self, tracer, rec):
        d = rec.as_dict()
        d["site"] = tracer.site.function
        self.session.add("graph_breaks", d)

    def run(self, tracer, outputs):
        t0 = time.perf_counter()
        leaves, pending = collect(outputs)
        metas = [leaf_meta(leaf) for leaf in leaves]
        ops = ops_key(leaves, pending, outputs)
        site = tracer.site
        entry, key, status, reasons = self.cache.lookup((site.key, tracer.flush_index), metas, ops,
                                                        tracer.options.get("dynamic"))
        if entry is None:
            entry = self.cache.insert(key)
            ms = (time.perf_counter() - t0) * 1e3
            self.session.add("compiles", {
                "graph_id": entry.graph_id, "function": site.function, "target": "reference",
                "kernels": 1, "ops": len(pending), "total_ms": ms, "cache": "miss"})
            if status == "recompile":
                self.session.add("recompiles", {
                    "graph_id": entry.graph_id, "function": site.function,
                    "filename": site.filename, "lineno": site.lineno,
                    "reason": "; ".join(reasons), "reasons": reasons})
        tracer.graph_ids.append(entry.graph_id)
        t1 = time.perf_counter()
        with tracer.suspended():
            values = reference.execute(pending, outputs)
        self.session.add("kernels", {
            "name": f"graph{entry.graph_id}", "graph_id": entry.graph_id, "target": "reference",
            "function": site.function, "wall_ms": (time.perf_counter() - t1) * 1e3})
        return values


ENGINE = Engine()
