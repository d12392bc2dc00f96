"""npcompile's own work, set aside from the purity watch's sys.setprofile hook.

The watch (api/purity.py) sees every Python call and return while a function's first
calls run, to learn whether a call can be replayed. Compiling and running a graph is
npcompile's code through and through, and runs no user code: there the hook only cost
time, called at each of the compiler's calls and returns. A program that compiles a
graph at every iteration of a loop took twice as long on its first call
(pendulum_rk2 at four times its periods: 0.66 s against 0.32 s without the watch)."""

_HOOKS = []   # the watch's hook function (Watch._event), registered by api/purity.py


def register(fn):
    _HOOKS.append(fn)


def is_watch(hook):
    """Is this sys.getprofile() the watch's hook? The caller sets it aside and back with
    sys.setprofile itself, in its own frame: a helper function that did either would
    have its call or its return unseen by the watch, which counts them to know whose
    code runs (its stack of zones)."""
    return getattr(hook, "__func__", None) in _HOOKS
