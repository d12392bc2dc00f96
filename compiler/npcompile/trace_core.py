"""The tracer's C++ core (npcompile._native.trace: compiler/trace_core), or None where the
native module is missing or was built without it (NPC_TRACE_CORE=0: the pure-Python
path). At the bottom of the package: the graph's Node is its C type where it loads, and
the tracer records through it."""
import os

core = None
if os.environ.get("NPC_TRACE_CORE", "1") != "0":
    try:
        from ._native import trace as core
    except Exception:  # ImportError, or a _native without the trace submodule
        core = None
