"""NumPy's creation functions as NumPy defines them: npcompile's own helper arrays must
never be recorded in a trace, and must not pay the tracing wrappers (creation.py) that
replace the numpy module's entries from the first trace on. A module imported after
that (the CPU backend is imported on the first compile) finds the wrappers in numpy:
they carry the original as __wrapped__."""
import numpy as _np


def _original(name):
    fn = getattr(_np, name)
    return getattr(fn, "__wrapped__", fn)


arange, array, asarray, empty, eye, full, linspace, ones, zeros = (
    _original(n) for n in ("arange", "array", "asarray", "empty", "eye", "full", "linspace",
                           "ones", "zeros"))
