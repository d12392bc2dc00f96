"""The tracer's C++ core (npcompile/trace_core.py loads it), configured with the package's
classes and slow paths. The Python code next to this file is
the definition of every rule; the core holds the graph's data structures and the hot
loops (recording a ufunc, a cached call's graph fingerprint) and falls back to the Python
rules for everything else. Without it the package traces the same graphs, slower."""
import numpy as np

from ..graph.node import Ref
from ..graph.signature import freeze
from ..trace_core import core
from .code_zones import INTERNAL_PREFIXES


def install(lazy_type, storage_type, slow_ufunc, py_operator):
    """Hand the core the package's classes and slow paths (once, at import)."""
    if core is None:
        return
    core.configure({"lazy_type": lazy_type, "storage_type": storage_type,
                    "slow_ufunc": slow_ufunc, "py_operator": py_operator, "ref_type": Ref, "internal": INTERNAL_PREFIXES,
                    "freeze": freeze, "ufuncs": np})
