"""Did the user's own code call a NumPy function here? Asked by the creation wrappers
(creation.py) and the random-number wrappers (random_rules.py) before they record."""
import linecache

from ..memo import CodeMemo
from .code_zones import zone_of


def called_by_user(frame, name):
    """Did the user's own code call np.<name> here, rather than a library it called?
    C code (numpy.random's Cython, for one) looks np.empty up in the numpy module and
    runs no Python frame of its own: such a call shows up as coming from the user's
    line, which is calling something else. A lazy array handed to C code that reads
    its memory would be a crash, so only a call whose own expression names the
    function is recorded; library and NumPy Python code always get real arrays."""
    code = frame.f_code
    calls = _callers.get(id(code))
    if calls is None:
        calls = _callers.put(code, {})
    got = calls.get(frame.f_lasti)
    if got is None:
        got = calls[frame.f_lasti] = _names_call(frame, name)
    return got


def _names_call(frame, name):
    code = frame.f_code
    if zone_of(code.co_filename) != "user":
        return False
    try:
        positions = list(code.co_positions())[frame.f_lasti // 2]
        line, end_line, col, end_col = positions
        lines = [linecache.getline(code.co_filename, n) for n in range(line, end_line + 1)]
        if all(lines) and col is not None and end_col is not None:
            text = "".join(lines)
            end = len(text) - len(lines[-1]) + end_col
            callee = text[col:end].split("(", 1)[0].strip()
            return callee == name or callee.endswith("." + name)
    except (AttributeError, IndexError, TypeError, ValueError):
        pass
    return name in code.co_names  # no source to read: the code names the function


_callers = CodeMemo()   # code -> {offset of the call: bool}
