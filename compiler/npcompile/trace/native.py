"""The tracer's C++ core (npcompile._native.trace: compiler/trace_core), or None where the
native module is missing or was built without it. The Python code next to this file is
the definition of every rule; the core holds the graph's data structures and the hot
loops (recording a ufunc, a cached call's graph fingerprint) and falls back to the Python
rules for everything else. Without it the package traces the same graphs, slower."""
import os

core = None
if os.environ.get("NPC_TRACE_CORE", "1") != "0":  # NPC_TRACE_CORE=0: the pure-Python path
    try:
        from .._native import trace as core
    except Exception:  # ImportError, or a _native without the trace submodule
        core = None


def install(lazy_type, storage_type, slow_ufunc):
    """Hand the core the package's classes and slow paths (once, at import)."""
    if core is None:
        return
    import numpy as np

    from ..graph.node import Ref
    from ..graph.signature import freeze
    from .breaks import INTERNAL_PREFIXES
    core.configure({"lazy_type": lazy_type, "storage_type": storage_type,
                    "slow_ufunc": slow_ufunc, "ref_type": Ref, "internal": INTERNAL_PREFIXES,
                    "freeze": freeze, "ufuncs": np})
