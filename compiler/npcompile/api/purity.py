"""Can a jitted function's next calls skip tracing? Watches one traced call.

A call replays its captured graph (api/replay.py) only if re-running the Python body
could not do anything else: the body's only effects are the ones the graph records, and
everything it reads besides its arguments is guarded. That is decided here, while the
body runs once under sys.setprofile:

* every Python function it runs that is the user's own is scanned: no global, attribute
  or nonlocal stores;
* every global it reads is a value that cannot change behind a guard's back (a number,
  a string, a function, a class, the numpy or math module, ...) and is guarded by
  identity; a global array, list or object refuses replay;
* every C function the user's code calls directly is known to be pure (ufuncs, numpy
  outside numpy.random and file I/O, math, methods of builtin containers and numbers,
  len/isinstance/min/...); print, time, random, I/O refuse replay;
* library Python code (the standard library, site packages) called from the user's code
  refuses replay: it is not scanned.

The first refusal is kept in words for the report ("calls print", "reads the global
W, an ndarray")."""
import builtins
import dis
import os
import sys
import types
import weakref

import numpy as np

from .. import profile_hook
from ..memo import CodeMemo
from ..trace.code_zones import WEAK_CALLBACKS, zone_of

_PURE_BUILTINS = frozenset((
    "len", "isinstance", "issubclass", "abs", "min", "max", "round", "divmod", "pow",
    "hasattr", "getattr", "hash", "callable", "sum", "any", "all", "sorted", "format",
    "chr", "ord", "iter", "next", "repr", "ascii", "bin", "hex", "oct"))
# the name by which code rewritten by api/loop_rewrite.py calls its runner
_LOOP_GLUE = "__npc_loop__"
_PURE_MODULES = frozenset(("math", "cmath", "operator", "_operator", "itertools", "functools",
                           "_functools"))
_CONTAINERS = (list, dict, set, frozenset, tuple, str, bytes, int, float, complex, bool,
               range, slice)
# In-place NumPy functions are fine: the only arrays the body can reach are its traced
# arguments (their writes are in the graph) and arrays it made itself. These are not:
# files and process-wide settings.
_IMPURE_NUMPY_NAMES = frozenset((
    "fromfile", "tofile", "save", "savez", "savez_compressed", "load", "loadtxt", "savetxt",
    "genfromtxt", "fromregex", "seterr", "seterrcall", "setbufsize", "set_printoptions",
    "dump", "dumps"))
_STORE_OPS = frozenset(("STORE_GLOBAL", "DELETE_GLOBAL", "STORE_ATTR", "DELETE_ATTR",
                        "IMPORT_STAR", "STORE_NAME", "DELETE_NAME"))
_GENERATOR_FLAGS = 0x20 | 0x80 | 0x100 | 0x200  # generator, coroutine, async (generator)
_MISSING = object()

_scans = CodeMemo()     # code -> (refusal or None, names of globals read)
# The code of the loop rewrites npcompile made of helpers a jitted function calls (api/
# loop_helpers.py) and of their nested bodies: closures, but over the loop runners
# npcompile made, not over the user's variables (the helpers rewritten have no closure
# of their own). A call of one is scanned as the user's code, not refused as a closure.
_OUR_CLOSURES = weakref.WeakSet()


def our_closure(fn):
    """Register fn, a loop rewrite of a plain module-level function (see _OUR_CLOSURES)."""
    _OUR_CLOSURES.add(fn.__code__)
    _OUR_CLOSURES.update(_nested_codes(fn.__code__))


def _settings_scope_codes():
    """The Python code of `with np.errstate(...)`: it sets NumPy's error handling and puts
    it back on the way out, so the call's effect on it is none (its operations run when
    their graph does, as on the first call: a compiled kernel warns of nothing either
    way)."""
    out = set()
    for attr in ("__init__", "__enter__", "__exit__"):
        fn = getattr(np.errstate, attr, None)
        code = getattr(fn, "__code__", None)
        if code is not None:
            out.add(code)
    return frozenset(out)


_SETTINGS_SCOPES = _settings_scope_codes()


def scan(code):
    """(refusal or None, global names read) of one code object, cached."""
    got = _scans.get(id(code))
    if got is None:
        refusal, names = None, []
        if code.co_flags & _GENERATOR_FLAGS and code.co_name not in (
                "<genexpr>", "<listcomp>", "<setcomp>", "<dictcomp>"):
            refusal = f"{code.co_name} is a generator or coroutine"
        for ins in dis.get_instructions(code):
            op = ins.opname
            if op in _STORE_OPS and refusal is None:
                what = "global" if "GLOBAL" in op or "NAME" in op else "attribute"
                refusal = f"{code.co_name} sets the {what} {ins.argval!r} (line {_line(ins)})"
            elif op in ("STORE_DEREF", "DELETE_DEREF") and ins.argval in code.co_freevars \
                    and refusal is None:
                refusal = (f"{code.co_name} rebinds the enclosing function's variable "
                           f"{ins.argval!r} (line {_line(ins)})")
            elif op == "LOAD_GLOBAL":
                names.append(ins.argval)
        got = _scans.put(code, (refusal, tuple(dict.fromkeys(names))))
    return got


def _line(ins):
    return ins.positions.lineno if getattr(ins, "positions", None) else ins.starts_line


class Fixed:
    """A value npcompile itself holds and never changes, read by a function it made (a Dask
    chunk's graph, api/dask_chunks.py): replay guards it by identity like an immutable one."""
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


def stable_value(value, depth=0):
    """None when a value read from a global or a closure cannot change without its
    identity changing (or is a module whose attributes we trust), else why not."""
    t = type(value)
    if value is None or value is Ellipsis or value is NotImplemented or \
            t in (int, float, complex, bool, str, bytes, range, slice, Fixed) or \
            isinstance(value, (np.generic, np.dtype, types.FunctionType,
                               types.BuiltinFunctionType, np.ufunc)):
        return None
    if isinstance(value, type):
        # builtin and NumPy types only: a class of the user's has attributes anyone can
        # set (Config.scale = 3) that an identity guard would not see
        mod = getattr(value, "__module__", "") or ""
        return None if mod == "builtins" or mod == "numpy" or mod.startswith("numpy.") \
            else f"the class {value.__name__} (its attributes are not guarded)"
    if t in (tuple, frozenset):
        if depth > 3:
            return "a deeply nested tuple"
        for v in value:
            why = stable_value(v, depth + 1)
            if why:
                return why
        return None
    if t is types.ModuleType:
        name = value.__name__
        if name in _PURE_MODULES or ((name == "numpy" or name.startswith("numpy.")) and
                                     not name.startswith("numpy.random")):
            return None
        if name == "npcompile" or name.startswith("npcompile."):
            return None
        return f"the module {name} (its attributes are not guarded)"
    # a jitted function, and the loop runner and helpers' rewrites a rewritten function
    # holds for good (what it runs compiled marks the call unreplayable itself; a loop
    # it declines is traced; a helper is looked up by the global read at each call)
    if getattr(t, "__module__", "").startswith("npcompile") and \
            t.__name__ in ("Jitted", "LoopRunner", "Helpers"):
        return None
    return f"a {t.__name__}"


class Watch:
    """sys.setprofile hook for one call of the user's function on these argument values
    (replay.arg_key's flat list): refusal (None when the call is replayable), and the
    guards on globals it read."""

    def __init__(self, fn, values):
        self.fn = fn
        self.values = values
        self.refusal = None
        self.transient = False  # the refusal says nothing about later calls
        # the first thing the call did that reached outside it (a store, print, I/O,
        # code not watched), or None: a call with none can run again from its start
        # (trace/budget.py). Reading a global array refuses replay but is no effect.
        self.effect = None
        self.globals = {}     # (id(dict), name) -> (dict, name, value or _MISSING)
        self.stack = []
        self.code_tree = _nested_codes(fn.__code__)
        # functions among the arguments are keyed by their code and closure values
        # (replay._function_key): calling them is calling code the key guards
        for v in values or ():
            if type(v) is types.FunctionType:
                self.code_tree.add(v.__code__)
                self.code_tree |= _nested_codes(v.__code__)

    def refuse(self, why, transient=False, effect=True):
        if self.refusal is None:
            self.refusal = why
            self.transient = transient
        if effect and self.effect is None:
            self.effect = why

    def __enter__(self):
        if sys.getprofile() is not None:
            self.refuse("a profiler or debugger is active", transient=True)
            return self
        sys.setprofile(self._event)
        return self

    def __exit__(self, *exc):
        if sys.getprofile() == self._event:
            sys.setprofile(None)
        if exc[0] is not None:
            self.refuse("the call raised", transient=True)
        return False

    def _event(self, frame, event, arg):
        if self.effect is not None:
            return
        if event == "call":
            code = frame.f_code
            zone = zone_of(code.co_filename)
            if zone == "library" and (code in WEAK_CALLBACKS or code.co_name == "__del__" or
                                      code in _SETTINGS_SCOPES):
                # what the collector runs (the standard library's weak callbacks, a
                # library object's __del__) is not the call's doing: it runs wherever a
                # collection starts. (A __del__ of the user's is scanned as theirs.)
                # np.errstate's scope leaves NumPy's settings as they were.
                zone = "ours"
            parent = self.stack[-1] if self.stack else "user"
            if zone == "user":
                self._user_code(frame, code)
            elif zone == "library" and parent == "user":
                self.refuse(f"calls {code.co_name} from {os.path.basename(code.co_filename)}, "
                            "library code replay does not look into")
            self.stack.append(zone)
        elif event == "return":
            if self.stack:
                self.stack.pop()
        elif event == "c_call":
            if self.stack and self.stack[-1] == "user":
                why = _impure_c_call(arg)
                if why and not (arg is locals and _LOOP_GLUE in frame.f_code.co_freevars):
                    # (the locals() of a loop's glue, api/loop_rewrite.py, reads the
                    # function's own names: a function of the user's that calls locals()
                    # itself is not rewritten)
                    self.refuse(why)

    def _user_code(self, frame, code):
        refusal, names = scan(code)
        if refusal:
            self.refuse(refusal)
            return
        if code.co_freevars and code is not self.fn.__code__ and code not in self.code_tree \
                and code not in _OUR_CLOSURES:
            self.refuse(f"calls {code.co_name}, a closure defined outside the function",
                        effect=False)
            return
        g = frame.f_globals
        b = g.get("__builtins__", builtins)
        b = b.__dict__ if type(b) is types.ModuleType else b
        for name in names:
            if name in g:
                value = g[name]
                why = stable_value(value)
                if why:
                    # an array read is a leaf of the trace, whose writes it sees; any
                    # other object may change under calls no event shows (NumPy 2's
                    # Generator methods are not C functions to the profiler)
                    self.refuse(f"reads the global {name}, {why}: replay would not see it "
                                "change", effect=not isinstance(value, np.ndarray))
                    continue
                self.globals[(id(g), name)] = (g, name, value)
            else:
                self.globals[(id(g), name)] = (g, name, _MISSING)
                if name in b:
                    self.globals[(id(b), name)] = (b, name, b[name])

    def guards(self):
        """[(dict, name, value or MISSING)]: the globals a replay checks by identity."""
        return list(self.globals.values())


def _impure_c_call(fn):
    """None when a C function called from the user's code is pure, else why not."""
    if isinstance(fn, np.ufunc):
        return None
    owner = getattr(fn, "__self__", None)
    name = getattr(fn, "__name__", "?")
    if type(owner) is types.ModuleType:
        mod = owner.__name__
    elif owner is not None:
        if isinstance(owner, _CONTAINERS):
            return None
        mod = getattr(type(owner), "__module__", "") or ""
        if mod == "builtins" and isinstance(owner, type):
            mod = owner.__module__
    else:
        mod = getattr(fn, "__module__", "") or ""
    if mod == "builtins":
        return None if name in _PURE_BUILTINS else f"calls {name}()"
    if mod in _PURE_MODULES:
        return None
    if (mod == "numpy" or mod.startswith("numpy.")) and not mod.startswith("numpy.random") \
            and name not in _IMPURE_NUMPY_NAMES:
        return None
    return f"calls {mod + '.' if mod else ''}{name}(), which may read or change state"


def _nested_codes(code):
    """The code objects defined inside a function (its nested defs, lambdas,
    comprehensions): their closures are the function's own variables."""
    out, stack = set(), [code]
    while stack:
        c = stack.pop()
        for k in c.co_consts:
            if isinstance(k, types.CodeType) and k not in out:
                out.add(k)
                stack.append(k)
    return out


def closure_guards(fn):
    """[(cell, value)] for the function's closure, or a refusal string."""
    out = []
    for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
        try:
            value = cell.cell_contents
        except ValueError:
            return f"its closure variable {name} is unbound"
        why = stable_value(value)
        if why:
            return f"reads the closure variable {name}, {why}: replay would not see it change"
        out.append((cell, value))
    return out


def defaults_refusal(fn):
    for v in (fn.__defaults__ or ()) + tuple((fn.__kwdefaults__ or {}).values()):
        why = stable_value(v)
        if why:
            return f"a default argument is {why}"
    return None


MISSING = _MISSING


profile_hook.register(Watch._event)
