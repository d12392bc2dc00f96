"""Whose code a frame runs, by its file: npcompile's, NumPy's, a library's, or the
user's. Graph breaks report the user's line (breaks.py), creation calls are recorded
only from the user's own code (creation.py), and replay scans only the user's code
(api/purity.py)."""
import os
import sysconfig
import weakref

import numpy as np

OWN_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NUMPY_DIR = os.path.dirname(os.path.abspath(np.__file__))
# NumPy's own frames and the dispatcher's "<__array_function__ internals>" (NumPy 1.x)
INTERNAL_PREFIXES = (OWN_DIR, NUMPY_DIR, "<__array_function__")
# NumPy code with hidden state or effects: random generators, files, error settings.
_NUMPY_IMPURE = tuple(os.path.join(NUMPY_DIR, p) for p in (
    "random", os.path.join("lib", "npyio.py"), os.path.join("lib", "format.py"),
    os.path.join("core", "_ufunc_config.py"), os.path.join("core", "arrayprint.py"),
    os.path.join("core", "memmap.py")))
_LIBRARY_DIRS = tuple({os.path.abspath(p) for p in (
    sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["purelib"],
    sysconfig.get_paths()["platlib"]) if p} | {os.path.dirname(os.__file__)})
_LIBRARY_MARKERS = (os.sep + "site-packages" + os.sep, os.sep + "dist-packages" + os.sep)


def _weak_callbacks():
    """The code of the standard library's weak-reference callbacks: a weak container's
    entry removal, a finalizer's run. The garbage collector calls them whenever it runs,
    from whatever frame is running then; seen as calls the user's code made into
    library code, they refused the replay of a loop body at random (a jitted function
    that died elsewhere: its finalizer ran during the trace)."""
    codes = {weakref.finalize.__call__.__code__}
    for box in (weakref.WeakValueDictionary(), weakref.WeakKeyDictionary(), weakref.WeakSet()):
        remove = getattr(box, "_remove", None)
        code = getattr(remove, "__code__", None)
        if code is not None:
            codes.add(code)
    return frozenset(codes)


WEAK_CALLBACKS = _weak_callbacks()  # run for the collector, not by the code it interrupts

_zones = {}     # co_filename -> "ours" | "numpy" | "library" | "user"


def zone_of(filename):
    z = _zones.get(filename)
    if z is None:
        path = os.path.abspath(filename) if not filename.startswith("<") else filename
        if path.startswith(OWN_DIR) or filename.startswith("<__array_function__"):
            z = "ours"
        elif path.startswith(NUMPY_DIR):
            z = "library" if path.startswith(_NUMPY_IMPURE) else "numpy"
        elif path.startswith(_LIBRARY_DIRS) or any(m in path for m in _LIBRARY_MARKERS) or \
                filename.startswith("<frozen "):
            # "<frozen codecs>" and friends are the standard library, frozen into the
            # interpreter: taken for the user's, they refused replay of every call that
            # read a source line (linecache decodes through codecs)
            z = "library"
        else:
            z = "user"  # the user's files, notebook cells (<ipython-input-...>), stdin
        _zones[filename] = z
    return z
