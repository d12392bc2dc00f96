"""Graph breaks: why tracing had to stop, on which line of the user's code, and a hint."""
import linecache
import sys

from ..cell_names import shown
from .code_zones import INTERNAL_PREFIXES
from ..memo import CodeMemo
from ..trace_core import core

_internal_codes = CodeMemo()   # code -> is it npcompile's or NumPy's


def user_frame(depth=1):
    """The innermost frame outside npcompile and NumPy: the line the user wrote."""
    f = sys._getframe(depth)
    cache = _internal_codes
    while f is not None:
        code = f.f_code
        r = cache.get(id(code))
        if r is None:
            r = cache.put(code, code.co_filename.startswith(INTERNAL_PREFIXES))
        if not r:
            return f
        f = f.f_back
    return None


def user_where():
    """(filename, lineno, function) of the user's line running now, or None: kept by
    what breaks the graph later, where it is used (a lazy `x[mask]` made compact at the
    call's end was reported at the caller's line, not the function's)."""
    f = user_frame(2)
    return None if f is None else (f.f_code.co_filename, f.f_lineno, f.f_code.co_name)


def user_site():
    """(filename, lineno) of the user's line that recorded an op, or None."""
    f = user_frame(2)
    if f is None:
        return None
    return (f.f_code.co_filename, f.f_lineno)


if core is not None:  # the same frame walk in C++, with its code cache
    user_site = core.user_site  # noqa: F811


# Kind of break -> hint shown to the user.
HINTS = {
    "bool": "Python needs True/False here (an if, while, and/or, assert on an array value). "
            "Use np.where(cond, a, b) to keep both branches in the graph, or move the test "
            "out of the compiled code.",
    "number": "Converting an array value to a Python number (int(), float(), .item(), an index) "
              "forces the computation. Keep it as an array (a 0-d array works in arithmetic) "
              "or do the conversion after the compiled code.",
    "print": "Printing or repr() needs the values. Print shapes and dtypes instead (they are "
             "known while tracing), or print after the compiled code.",
    "iter": "Iterating over an array needs its rows one by one. Use whole-array operations "
            "or an axis= argument instead of a Python loop over the array.",
    "tolist": ".tolist() makes Python objects from the values. Keep working on arrays.",
    "array": "Code outside NumPy asked for a concrete array (__array__). Call it after the "
             "compiled code, or use the NumPy equivalent.",
    "unsupported": "This NumPy function is not captured yet: it ran eagerly in NumPy and "
                   "tracing went on after it. Express it with supported operations to keep "
                   "one graph.",
    "data_shape": "The result's shape depends on the data (boolean mask or nonzero). "
                  "np.where(mask, x, 0) or a reduction over np.where keeps a static shape.",
    "value_dtype": "Under NumPy 1.x the result dtype of this operation depends on a value "
                   "(value-based casting). Cast the 0-d operand with .astype() or use NumPy 2.",
    "alias": "An in-place update wrote to memory that another traced array shares. It ran "
             "eagerly to keep NumPy's aliasing semantics; avoid writing through overlapping views.",
    "attribute": "This ndarray attribute or method is not captured yet: the array was computed "
                 "and the call ran in NumPy.",
    "error": "NumPy raised an error for this operation; it was re-run eagerly so the error "
             "is NumPy's own.",
    "inplace_untraced": "An in-place update targets an array that is not traced (a plain "
                        "ndarray, e.g. a global). Pass it as an argument to trace it.",
    "untraced_order": "An argument of a dtype the kernels do not compute (long double, "
                      "byte-swapped) is changed by NumPy as the code runs, so an error NumPy "
                      "raises by value (a negative integer power) is checked where it is "
                      "raised. Convert that argument (a.astype(np.float32)) to keep one graph.",
}


class BreakRecord:
    __slots__ = ("kind", "reason", "filename", "lineno", "function", "code", "hint")

    def __init__(self, kind, reason, frame, where=None):
        self.kind = kind
        self.reason = reason
        self.hint = HINTS.get(kind, "")
        if where is not None or frame is not None:
            # (where: a break decided later than the line that made it)
            filename, self.lineno, self.function = where if where is not None else (
                frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name)
            self.code = linecache.getline(filename, self.lineno).strip()
            self.filename = shown(filename)
        else:
            self.filename, self.lineno, self.function, self.code = "<unknown>", 0, "", ""

    def as_dict(self):
        return {k: getattr(self, k) for k in self.__slots__}

    def __repr__(self):
        return f"<graph break {self.filename}:{self.lineno}: {self.reason}>"
