"""device="cuda": compile a graph for the GPU, or say why not and let the caller run it
on the CPU (no GPU here) or in NumPy (a failed compile). Never a crash."""
from . import cuda_runtime

_WARNED = set()
LOWERED = {}   # graph id -> CUDA Program compiled for inspection only (no GPU here)


def compile_for_cuda(session, tracer, entry, leaves, pending, outputs, deadline=None):
    """(Program, "cuda"), (None, "reference") after a failed compile, (None, "deadline")
    when the call's compile budget ran out midway (perf_counter() `deadline`), or None
    when no GPU can be used: the caller then compiles for the CPU. Each outcome is
    recorded."""
    ok, why = cuda_runtime.available()
    if not ok:
        _lower_only(session, entry, leaves, pending, outputs)
        session.add("fallbacks", {"graph_id": entry.graph_id, "function": tracer.site.function,
                                  "reason": f"CUDA unavailable, running on the CPU: {why}"})
        if why not in _WARNED:  # once per reason: the report has every occurrence
            _WARNED.add(why)
            import warnings
            warnings.warn(f"npcompile: device='cuda' runs on the CPU here: {why}", RuntimeWarning,
                          stacklevel=2)
        return None
    from .cuda import CompileDeadline, Program
    try:
        return Program(leaves, pending, outputs, deadline=deadline), "cuda"
    except CompileDeadline:
        return None, "deadline"
    except Exception as e:
        session.add("fallbacks", {"graph_id": entry.graph_id, "function": tracer.site.function,
                                  "reason": f"CUDA compile failed: {type(e).__name__}: {e}"})
        return None, "reference"


def _lower_only(session, entry, leaves, pending, outputs):
    """Without a GPU the graph still compiles to CUDA C and PTX (NVRTC needs no GPU), so
    lower() shows what would run there; CI checks every seed workload this way."""
    if not cuda_runtime.compiler_available()[0]:
        return
    from .cuda import Program
    try:
        LOWERED[entry.graph_id] = Program(leaves, pending, outputs, load=False)
    except Exception as e:
        session.add("fallbacks", {"graph_id": entry.graph_id,
                                  "reason": f"CUDA compile failed: {type(e).__name__}: {e}"})
