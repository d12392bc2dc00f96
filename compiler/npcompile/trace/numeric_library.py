"""NumPy's numeric helpers as library steps (library_rules.library_call): np.cross,
np.vander, np.trapezoid (np.trapz), np.convolve, np.correlate, np.gradient, np.unwrap,
np.nan_to_num, np.sinc, np.ediff1d, np.polyfit, np.inner,
np.vdot, np.linalg.multi_dot.
Each result's shape follows from the arguments' shapes, declared here as NumPy derives
it; NumPy's own function runs as a step of the graph (same values, same warnings), its
dtype and scalar boxing from the call on stand-ins. Where NumPy would refuse the shapes
the rule says so, and NumPy itself raises its error eagerly: a small stand-in could
let pass what the real shapes make NumPy refuse."""
import operator

import numpy as np

from .library_rules import _axis, _shape, declare
from .operands import Unsupported


def _refused(what):
    return Unsupported("error", what)


def _broadcast(*shapes):
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError as e:
        raise _refused(str(e))


def _index(v, what):
    try:
        return operator.index(v)
    except TypeError:
        raise Unsupported("unsupported", f"{what} {v!r}")


def _cross(b):
    """The vectors along axisa / axisb (axis= sets all three), of 2 or 3 components; the
    other axes broadcast; a 3-vector result along axisc, none for two 2-vectors (their
    z component, NumPy 2 deprecating them)."""
    a, c = _shape(b, "a"), _shape(b, "b")
    axis = b.get("axis")
    axa, axb, axc = (axis,) * 3 if axis is not None else \
        (b.get("axisa"), b.get("axisb"), b.get("axisc"))
    axa, axb = _axis(axa, len(a), "cross"), _axis(axb, len(c), "cross")
    if a[axa] not in (2, 3) or c[axb] not in (2, 3):
        raise _refused("incompatible dimensions for cross product")
    rest = _broadcast(a[:axa] + a[axa + 1:], c[:axb] + c[axb + 1:])
    if a[axa] == c[axb] == 2:
        return rest
    axc = _axis(axc, len(rest) + 1, "cross")
    return rest[:axc] + (3,) + rest[axc:]


def _vander(b):
    x, n = _shape(b, "x"), b.get("N")
    if len(x) != 1:
        raise _refused("x must be a one-dimensional array or sequence.")
    n = x[0] if n is None else _index(n, "np.vander: N")
    if n < 0:
        raise _refused("negative dimensions are not allowed")
    return (x[0], n)


def _less_one(shape, axis):
    return shape[:axis] + (max(shape[axis] - 1, 0),) + shape[axis + 1:]


def _trapezoid(b):
    """NumPy's sum(d * (y[1:] + y[:-1]) / 2, axis): d the spacing dx, or diff(x) (a 1-d
    x laid along y's axis); the broadcast of d and y's pairs, without the axis."""
    y, axis, x = _shape(b, "y"), b.get("axis"), b.get("x")
    if not y:
        raise _refused("np.trapezoid of a 0-d array")
    along = _axis(axis, len(y), "trapezoid")
    pairs = _less_one(y, along)
    if x is None:
        d = _shape(b, "dx")
    else:
        xs = _shape(b, "x")
        if len(xs) == 1:
            d = tuple(max(xs[0] - 1, 0) if i == along else 1 for i in range(len(y)))
        elif not xs:
            raise _refused("diff requires input that is at least one dimensional")
        else:
            d = _less_one(xs, _axis(axis, len(xs), "trapezoid"))
    out = _broadcast(d, pairs)
    ax = _axis(axis, len(out), "trapezoid")
    return out[:ax] + out[ax + 1:]


_MODES = {"full": lambda n, m: n + m - 1, "same": max,
          "valid": lambda n, m: max(n, m) - min(n, m) + 1}


def _correlation(b):
    """np.convolve / np.correlate of two sequences (a 0-d one has one element)."""
    a, v, mode = _shape(b, "a"), _shape(b, "v"), b.get("mode")
    if len(a) > 1 or len(v) > 1:
        raise _refused("object too deep for desired array")
    n, m = (a or (1,))[0], (v or (1,))[0]
    if not n or not m:
        raise _refused("a and v must not be empty")
    if not isinstance(mode, str) or mode not in _MODES:
        raise Unsupported("unsupported", f"mode={mode!r}")
    return (_MODES[mode](n, m),)


def _gradient(b):
    """f's shape for each axis asked (one array for one axis, else a list; a tuple on
    NumPy 2, as the call on stand-ins shows), after NumPy's checks of the spacings and
    of the axes' lengths (the stand-ins are shorter)."""
    f, axis, edge = _shape(b, "f"), b.get("axis"), b.get("edge_order")
    if axis is None:
        axes = list(range(len(f)))
    else:
        axes = [_axis(x, len(f), "gradient") for x in
                (axis if isinstance(axis, (tuple, list)) else (axis,))]
    if not axes or len(set(axes)) != len(axes):
        raise Unsupported("unsupported", "np.gradient along no axis or the same twice")
    if type(edge) is not int or edge not in (1, 2):
        raise Unsupported("unsupported", f"np.gradient(edge_order={edge!r})")
    if any(f[ax] < edge + 1 for ax in axes):
        raise _refused("Shape of array too small to calculate a numerical gradient")
    spacing = b.get("varargs")
    if len(spacing) == 1 and not _shape({"s": spacing[0]}, "s"):
        spacing = ()
    if spacing and len(spacing) != len(axes):
        raise _refused("invalid number of arguments")
    for s, ax in zip(spacing, axes):
        sh = _shape({"s": s}, "s")
        if sh and sh != (f[ax],):
            raise _refused("distances must be scalars or 1d, of the axis' length")
    return f if len(axes) == 1 else [f] * len(axes)


def _unwrap(b):
    p = _shape(b, "p")
    if not p:
        raise _refused("diff requires input that is at least one dimensional")
    _axis(b.get("axis"), len(p), "unwrap")
    return p


def _nan_to_num(b):
    if b.get("copy") is not True:
        raise Unsupported("unsupported", "np.nan_to_num(copy=False) writes into its input")
    return _shape(b, "x")


def _ediff1d(b):
    """The flat differences, then to_end's and to_begin's elements around them."""
    n = int(np.prod(_shape(b, "ary")))
    ends = sum(int(np.prod(_shape(b, k))) for k in ("to_end", "to_begin")
               if b.get(k) is not None)
    return (max(n - 1, 0) + ends,)


def _polyfit(b):
    """The deg + 1 coefficients, per column of a 2-d y (full= and cov= add results)."""
    x, y, deg = _shape(b, "x"), _shape(b, "y"), b.get("deg")
    if b.get("full") or b.get("cov") is not False:
        raise Unsupported("unsupported", "np.polyfit(full=, cov=)")
    deg = _index(deg, "np.polyfit: deg")
    if deg < 0 or len(x) != 1 or len(y) not in (1, 2) or y[0] != x[0] or not x[0]:
        raise _refused("np.polyfit: arguments NumPy refuses")
    return (deg + 1,) + y[1:]


def _inner(b):
    """The sums over the last axes: a's other axes, then b's (a 0-d operand scales)."""
    a, c = _shape(b, "a"), _shape(b, "b")
    if not a or not c:
        return c if not a else a
    if a[-1] != c[-1]:
        raise _refused("shapes not aligned: dimension mismatch")
    return a[:-1] + c[:-1]


def _vdot(b):
    if int(np.prod(_shape(b, "a"))) != int(np.prod(_shape(b, "b"))):
        raise _refused("vectors have different lengths")
    return ()


def _multi_dot(b):
    """The matmul chain's shape: 1-d ends are a row and a column vector, dropped."""
    shapes = [np.shape(a) for a in b.get("arrays")]
    if len(shapes) < 2 or any(len(s) != 2 for s in shapes[1:-1]) or \
            len(shapes[0]) not in (1, 2) or len(shapes[-1]) not in (1, 2):
        raise _refused("np.linalg.multi_dot: arrays of these dimensions")
    out = shapes[0]
    for s in shapes[1:]:
        lead = (1,) + out if len(out) == 1 else out
        if lead[-1] != (s[0] if s else 0):
            raise _refused("np.linalg.multi_dot: shapes not aligned")
        out = out[:-1] + s[1:]
    return out


# C functions of NumPy 1.x carry no signature: theirs, as NumPy 2 declares them
def _pair(a, b):
    pass


SHAPES = {np.cross: _cross, np.vander: _vander, np.convolve: _correlation,
          np.correlate: _correlation, np.gradient: _gradient, np.unwrap: _unwrap}
for _name in ("trapezoid", "trapz"):     # trapz before NumPy 2.0, trapezoid after (2.4 drops trapz)
    if callable(getattr(np, _name, None)):
        SHAPES[getattr(np, _name)] = _trapezoid

SHAPES.update({np.nan_to_num: _nan_to_num, np.sinc: lambda b: _shape(b, "x"),
               np.ediff1d: _ediff1d, np.polyfit: _polyfit, np.inner: _inner,
               np.vdot: _vdot, np.linalg.multi_dot: _multi_dot})
TABLE = declare(SHAPES, {np.inner: _pair, np.vdot: _pair})
