"""NumPy's floating-point error handling that only NumPy gives: np.errstate or np.seterr
set to "raise" (or "call", "print", "log") for division by zero, overflow, underflow or
an invalid value.

Compiled kernels test no floating-point exception flags (a loop nest stops on them and
runs as Python, but a fused kernel runs on). Under NumPy's default handling, "warn",
that costs a RuntimeWarning; under "raise" it would cost NumPy's FloatingPointError,
and the values after it: where NumPy stops at the error, a kernel would return inf or
NaN as if nothing happened. So a call made while such a mode is in force, and a
function whose own code enters one, runs as plain NumPy, visibly (a fallback in the
report), and NumPy raises where it raises."""
import dis
import types

import numpy as np

from ..memo import CodeMemo

# the modes under which NumPy does more than warn: its error, a callback, a print or a
# log line, each at the operation that set the flag
RAISING = frozenset(("raise", "call", "print", "log"))
_KINDS = ("divide", "over", "under", "invalid")
_SETTERS = frozenset(("errstate", "seterr"))

_scopes = CodeMemo()     # code -> what its errstate/seterr raises for, or ""


# NumPy 1.x keeps the handling as an int mask (3 bits per kind), which np.geterr()
# decodes in Python at each call: masks found free of RAISING modes are remembered.
# NumPy 2 keeps it as an object in a context variable, replaced (never changed) by
# errstate and seterr, equal only to itself: objects found free of them are remembered
# (np.geterr() builds a dict at each call: 1.5 us on the GPU machine's host, where every
# jitted call asks). Either way a jitted call pays one C call.
if np.__version__.split(".")[0] == "1":
    _errobj = np.core.umath.geterrobj

    def _handling():
        return _errobj()[1]
else:
    _handling = getattr(getattr(np._core, "umath", None), "_extobj_contextvar", None)
    _handling = _handling.get if _handling is not None else (lambda: None)
QUIET = set()           # handlings found free of RAISING modes (read by api/jit's C base)
_QUIET_MAX = 64         # (errstate blocks in a loop make new ones: forgotten past this)


# NumPy's floating-point handling in force now, a member of QUIET where it raises for
# nothing: api/jit's C base calls it at each call it runs (no Python frame of ours)
handling = _handling


def raising_now():
    """'divide="raise"' and the like for the handling in force now, or None: a call
    made under it runs as plain NumPy."""
    h = _handling()
    if h is not None and h in QUIET:
        return None
    modes = np.geterr()
    if RAISING.isdisjoint(modes.values()):   # (every jitted call asks: the common case)
        if h is not None:
            if len(QUIET) >= _QUIET_MAX:
                QUIET.clear()
            QUIET.add(h)
        return None
    return ", ".join(f'{k}="{modes[k]}"' for k in _KINDS if modes[k] in RAISING)


def raising_scope(fn):
    """'np.errstate(... "raise")' where the function's own code (its nested functions
    and comprehensions included) calls np.errstate or np.seterr with one of the RAISING
    modes written out, else None. (Modes computed at run time, `np.errstate(**kw)`,
    are not seen: such a scope behaves as "warn" in compiled kernels.)"""
    code = getattr(fn, "__code__", None)
    return raising_code(code) if isinstance(code, types.CodeType) else None


def raising_code(code):
    """raising_scope of a code object (a cell's)."""
    return _scan(code) or None


def _scan(code):
    got = _scopes.get(id(code))
    if got is None:
        names, modes = set(), set()
        for ins in dis.get_instructions(code):
            if ins.opname in ("LOAD_ATTR", "LOAD_METHOD", "LOAD_GLOBAL", "LOAD_NAME") and \
                    ins.argval in _SETTERS:
                names.add(ins.argval)
            elif ins.opname == "LOAD_CONST" and isinstance(ins.argval, str) and \
                    ins.argval in RAISING:
                modes.add(ins.argval)
        found = ""
        if names and modes:
            found = f"np.{sorted(names)[0]}(... \"{sorted(modes)[0]}\")"
        for const in code.co_consts:
            if not found and isinstance(const, types.CodeType):
                found = _scan(const)
        got = _scopes.put(code, found)
    return got


def reason(where, what):
    """The report's words for a call that ran as plain NumPy because of `what`."""
    return (f"{what} {where}: floating-point errors are raised by NumPy alone (compiled "
            f"kernels do not test the flags), so the call ran as plain NumPy")
