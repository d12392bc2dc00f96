"""Loops inside the plain Python functions a jitted function calls.

`u = thomas(a, b, c, u)` in a time loop, where `thomas` is the user's module-level
function with two sweeps over rows: only the jitted function's own loops were
rewritten (api/loop_rewrite.py), so the helper's loops unrolled into the trace at
every call, and a first call grew with the time loop (thomas_batch: 0.4 s cold, 1.1 s
with four times the steps). So a call `name(...)`, where `name` is a global of the
function bound, when it is rewritten, to a plain Python function that holds a loop,
becomes `__npc_helper__(name)(...)`: the global is still read at every call (a new
`def thomas` in a later notebook cell is the one called, and the replay watch sees
the read), and __npc_helper__ hands back that function's own loop rewrite (made once,
with loop runners of the jitted function's) where it is the function seen at rewrite
time, else the function itself."""
import ast
import inspect
import sys
import textwrap
import types

from . import purity
from ..profile_hook import is_watch

HELPER = "__npc_helper__"


def helper_names(fn, locals_):
    """The global names fn calls that are bound now to plain Python functions whose
    source holds a `for` or `while` loop: {name: function}."""
    found = {}
    for name in fn.__code__.co_names:
        f = fn.__globals__.get(name)
        if name in locals_ or type(f) is not types.FunctionType or f is fn or \
                f.__code__.co_freevars:
            continue
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(f)))
        except (OSError, TypeError, SyntaxError):
            continue
        if any(isinstance(n, (ast.For, ast.While)) for n in ast.walk(tree)):
            found[name] = f
    return found


class _Calls(ast.NodeTransformer):
    def __init__(self, names):
        self.names = names

    def visit_Call(self, node):
        self.generic_visit(node)
        f = node.func
        if isinstance(f, ast.Name) and f.id in self.names:
            node.func = ast.copy_location(
                ast.Call(ast.Name(HELPER, ast.Load()), [ast.Name(f.id, ast.Load())], []), f)
        return node


def route_calls(trees, names):
    """Calls of these names in the function's (and its loop bodies') trees go through
    __npc_helper__."""
    calls = _Calls(names)
    for tree in trees:
        calls.visit(tree)


class Helpers:
    """__npc_helper__ of one rewritten function: each helper seen at rewrite time, with
    its loops rewritten (rewrite(helper, runner_factory), the same rewrite, whose own
    helpers go the same way), or as it is where that was refused."""

    def __init__(self, found, rewrite, runner_factory):
        self.found = {id(f): f for f in found.values()}
        self.rewrite = rewrite
        self.runner_factory = runner_factory
        self.made = {}          # id(helper) -> its rewrite, or the helper itself

    def __call__(self, f):
        key = id(f)
        got = self.made.get(key)
        if got is not None:
            return got
        if self.found.get(key) is not f:
            return f            # rebound since: the function the name holds now
        self.made[key] = f      # (a recursive helper calls itself as it is meanwhile)
        # The rewrite (made at the helper's first call, inside a watched call) reads
        # its source and runs the module code that defines it: npcompile's work, out of
        # the purity watch's sight, set aside and back here in this frame (as
        # exec/engine.run does). Seen, its `<string>` and defining code counted as the
        # user's, and the caller never replayed.
        hook = sys.getprofile()
        if hook is not None and is_watch(hook):
            sys.setprofile(None)
        else:
            hook = None
        try:
            new, _ = self.rewrite(f, self.runner_factory)
        except Exception:      # the helper runs as written, traced as before
            new = None
        finally:
            if hook is not None:
                sys.setprofile(hook)
        if new is not None:
            purity.our_closure(new)     # (a closure over our loop runners only)
        self.made[key] = new if new is not None else f
        return self.made[key]
