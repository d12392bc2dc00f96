"""NumPy's creation functions bound before any trace swaps the module's entries
(creation.py): npcompile's own helper arrays must never be recorded in a trace."""
from numpy import arange, array, asarray, empty, eye, full, linspace, ones, zeros  # noqa: F401
