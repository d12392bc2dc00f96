"""min(a, b) and max(a, b) inside a loop body compiled once, kept in the graph where that
is the same program: `dt = min(cfl * dx / np.max(np.abs(u)), T - t)`.

Python's min(a, b) is `b if b < a else a` (max: `b if b > a else a`): the first of
equals, and a NaN where it comes first, since every comparison with NaN is false. On
traced values the test is a graph break, one per iteration, and the body never
replays. Where a and b are NumPy scalars of one dtype, the result is one of them, so
its type is known without its value: the same choice is np.where(b < a, b, a), a NumPy
scalar of that dtype, traced. Anything else (a Python float against a NumPy scalar,
whose result type hangs on the values; two dtypes; 0-d arrays, which min returns as
the very object; complex numbers) is the builtin's call as written.

api/loop_rewrite.py turns min(a, b) and max(a, b) of a body function (two positional
arguments, where the function has no min or max of its own) into pick(min, a, b): the
name is looked up as the user's code would, and a min that is not the builtin is
called as it is."""
import builtins

import numpy as np

from ..trace.lazy_array import LazyArray

_KINDS = "biuf"


def pick(fn, a, b):
    if fn is builtins.min:
        if _one_scalar_type(a, b):
            return np.where(b < a, b, a)[()]
    elif fn is builtins.max:
        if _one_scalar_type(a, b):
            return np.where(b > a, b, a)[()]
    return fn(a, b)


def choose(test, a, b):
    """`a if test else b` for an `if` made selects (api/loop_selects.py). A traced 0-d
    bool test choosing between NumPy scalars of one dtype stays in the graph, a select
    whose result has that dtype whichever way the test goes; anything else asks the
    test's truth as the `if` did (a graph break where it is traced)."""
    if type(test) is LazyArray and test.shape == () and test.dtype == np.bool_ and \
            _one_scalar_type(a, b):
        return np.where(test, a, b)[()]
    return a if test else b


def _one_scalar_type(a, b):
    """Are a and b NumPy scalars of one real dtype, one of them traced?"""
    if type(a) is not LazyArray and type(b) is not LazyArray:
        return False
    dtypes = []
    for v in (a, b):
        if type(v) is LazyArray:
            if not v._scalar or v.shape != ():
                return False
        elif not isinstance(v, np.generic):
            return False
        dtypes.append(v.dtype)
    return dtypes[0] == dtypes[1] and dtypes[0].kind in _KINDS
