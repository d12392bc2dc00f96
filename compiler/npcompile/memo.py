"""The tracer's and backends' memo tables: bounded, and emptied by npcompile.reset().

Each table answers a question NumPy or the interpreter would answer again (a ufunc's
result dtype for these operand types and constants, whether a code object is ours, a
broadcast shape). Keyed by what programs vary, constants, shapes and code objects, the
plain dicts they were grew for the life of the process: a notebook defining 2,000 small
functions kept every one's code object (and its constants) alive after reset(), and the
few small objects each left behind pinned the interpreter's 1 MB arenas, so that RSS
stayed 50 MB up after reset() for 2,000 small functions.

* Memo: a dict that empties itself when it reaches its cap (a miss costs one NumPy
  question, so forgetting everything at once is cheaper than keeping an order).
* CodeMemo: keyed by a code object's id, each entry dropped when its code object is
  freed (a weak reference's callback): a function the user deletes takes its entries
  with it, and looking up stays a plain dict lookup on the hot path (every recorded op
  asks breaks.user_frame)."""
import weakref

CAP = 4096
_TABLES = []


class Memo(dict):
    __slots__ = ("cap",)

    def __init__(self, cap=CAP):
        super().__init__()
        self.cap = cap
        _TABLES.append(self)

    def __setitem__(self, key, value):
        if len(self) >= self.cap and key not in self:
            self.clear()
        super().__setitem__(key, value)


class CodeMemo(dict):
    """id(code) -> value, for as long as the code object lives."""
    __slots__ = ("_refs",)

    def __init__(self):
        super().__init__()
        self._refs = {}
        _TABLES.append(self)

    def put(self, code, value):
        key = id(code)
        if key not in self._refs:
            self._refs[key] = weakref.ref(code, self._forget(key))
        self[key] = value
        return value

    def _forget(self, key):
        def callback(_ref):
            self.pop(key, None)
            self._refs.pop(key, None)
        return callback

    def clear(self):
        super().clear()
        self._refs.clear()


def clear_all():
    """Every table emptied (npcompile.reset())."""
    for table in _TABLES:
        table.clear()
