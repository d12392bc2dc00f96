"""Errors npcompile raises on purpose."""
from .cell_names import location


class NpcompileError(Exception):
    """Base class of npcompile's own errors."""


class GraphBreakError(NpcompileError):
    """Raised under fullgraph=True at the first graph break, instead of falling back."""

    def __init__(self, record):
        self.record = record
        where = location(record.filename, record.lineno)
        text = f"\n    {record.code}" if record.code else ""
        super().__init__(f"graph break at {where}: {record.reason}{text}\n  hint: {record.hint}")
