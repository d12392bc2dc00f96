"""Python numbers computed by the graph: `np.count_nonzero(m)` under NumPy 1.x returns a
Python int, and the program goes on with it (`4 * hits / n`). Reading it at once was a
graph break per call. It is a LazyArray of one 0-d node (int64, float64 or bool) whose
`_scalar` field holds a PyNumber instead of True/False: the graph computes it, and it
leaves the trace as the Python type (`LazyArray._value`).

Where Python's rules and NumPy's differ, this module keeps Python's or reads the value:
* Python's operators between Python numbers (`hits * 4`, `hits / n`, `hits > 0`) are
  Python's: ints do not overflow, and division by zero raises ZeroDivisionError. The
  graph computes them in int64 and float64 only where the values are known to give
  Python's answer: the ints' bounds stay within 2**53 (exact as floats, no overflow),
  and a divisor's bounds exclude zero. Anything else reads the value (a graph break)
  and Python computes.
* Mixed with NumPy values (`x * hits`, `np.sqrt(hits)`), NumPy treats a Python number as
  weak (NEP 50) or by its value (NumPy 1.x). The number enters NumPy's call as a 0-d
  array of a dtype D for which NumPy's answer is its answer for every value the number
  can hold (its bounds, tried), and which holds those values exactly."""
import operator

import numpy as np

from .. import np_base as _nb
from ..dtypes import traced_dtype
from ..graph import calls
from ..graph.node import Ref
from .operand_types import NUMPY2, proto

_EXACT_INT = 1 << 53      # ints within this stay exact as float64 and never overflow int64

# Python's operator for each ufunc an operator on a LazyArray records
_PYTHON_OPERATOR = {
    np.add: operator.add, np.subtract: operator.sub, np.multiply: operator.mul,
    np.true_divide: operator.truediv, np.floor_divide: operator.floordiv,
    np.remainder: operator.mod, np.power: operator.pow, np.bitwise_and: operator.and_,
    np.bitwise_or: operator.or_, np.bitwise_xor: operator.xor,
    np.left_shift: operator.lshift, np.right_shift: operator.rshift,
    np.negative: operator.neg, np.positive: operator.pos, np.absolute: operator.abs,
    np.invert: operator.invert, np.less: operator.lt, np.less_equal: operator.le,
    np.greater: operator.gt, np.greater_equal: operator.ge, np.equal: operator.eq,
    np.not_equal: operator.ne,
}
_COMPARE = frozenset((np.less, np.less_equal, np.greater, np.greater_equal, np.equal,
                      np.not_equal))
_NATURAL = {int: np.dtype(np.int64), float: np.dtype(np.float64), bool: np.dtype(np.bool_)}
_FLOAT_VALUES = (0.0, -1.0, 1e300, float("inf"), float("nan"))


class PyNumber:
    """What a lazy Python number is: its type and, for an int, bounds on its value."""

    __slots__ = ("type", "lo", "hi")

    def __init__(self, typ, lo=None, hi=None):
        self.type, self.lo, self.hi = typ, lo, hi

    def __bool__(self):     # `if lz._scalar:` elsewhere: a 0-d value, as a NumPy scalar
        return True

    def __repr__(self):
        return f"PyNumber({self.type.__name__}, {self.lo}, {self.hi})"


def python_operator(ufunc):
    """Python's operator for the ufunc an operator records (None for another ufunc)."""
    return _PYTHON_OPERATOR.get(ufunc)


def is_python(x):
    """Is x a lazy Python number?"""
    return type(getattr(x, "_scalar", None)) is PyNumber


def lazy_int(tracer, lz, lo, hi):
    """The 0-d integer lazy array lz as the Python int it stands for, in [lo, hi]."""
    if lz._n.dtype != np.int64:
        lz = _cast(tracer, lz, np.dtype(np.int64))
    return _with(tracer, lz, PyNumber(int, lo, hi))


def lazy_bool(tracer, lz):
    """The 0-d boolean lazy array lz as the Python bool it stands for (np.array_equal,
    np.allclose: `bool(...)` of NumPy's answer)."""
    return _with(tracer, lz, PyNumber(bool, 0, 1))


def _with(tracer, lz, number):
    """lz's value under another `_scalar`, registered as the tracer's own (a flush keeps
    the values that live lazy arrays hold)."""
    node = lz._n
    if type(number) is PyNumber and number.lo is not None:
        tracer.int_bounds[id(node)] = (node, max(abs(number.lo), abs(number.hi)))
    return tracer._register(type(lz)(lz._st, lz._chain, node, number))


def int_bound(tracer, node):
    """The largest magnitude of the Python int that node computes, where known."""
    got = tracer.int_bounds.get(id(node)) if tracer is not None else None
    return got[1] if got is not None and got[0] is node else None


def as_numpy(tracer, lz, dtype=None):
    """The lazy Python number as a NumPy scalar of `dtype` (its natural one by default):
    what NumPy makes of the Python number where it takes it as an operand."""
    dt = _NATURAL[lz._scalar.type] if dtype is None else np.dtype(dtype)
    if dt != lz._n.dtype:
        return _cast(tracer, lz, dt)
    return _with(tracer, lz, True)


def _cast(tracer, lz, dt):
    return tracer.make(calls.astype, (Ref(0), dt, "unsafe"), None, (lz._n,), dt, (),
                       f"astype({dt})", scalar=True)


def _interval(x):
    """(lo, hi) of an int operand (a bool counts as the int it is in Python); None when
    unknown or not an int."""
    if type(x) is bool or type(x) is int:
        return int(x), int(x)
    if is_python(x) and x._scalar.type in (int, bool):
        n = x._scalar
        return (n.lo, n.hi) if n.lo is not None else None
    return None


def _python_type(x):
    return x._scalar.type if is_python(x) else type(x)


def operator_call(tracer, ufunc, inputs, record):
    """A Python operator on lazy Python numbers and Python constants: Python's result
    type, computed by the graph where NumPy's int64/float64 give Python's values; else
    the values are read and Python computes (None: the caller takes NumPy's rules, an
    operand being a NumPy value). record: trace/ufunc_rules.call."""
    if not all(is_python(x) or type(x) in (int, float, bool) for x in inputs):
        return None
    op = _PYTHON_OPERATOR.get(ufunc)
    types = [_python_type(x) for x in inputs]
    number = None if op is None else _result(ufunc, inputs, types)
    if number is None:      # Python computes, on the values (the graph runs to them)
        values = [x._force("number", f"Python's {op.__name__ if op else ufunc.__name__} "
                                     f"of a Python number") if is_python(x) else x
                  for x in inputs]
        return op(*values) if op is not None else ufunc(*values)
    operands = [as_numpy(tracer, x, np.int64 if t is bool else None) if is_python(x) else
                (int(x) if t is bool else x) for x, t in zip(inputs, types)]
    r = record(tracer, ufunc, tuple(operands), {})
    if r._n.dtype != _NATURAL[number.type]:
        raise AssertionError(f"{ufunc.__name__} of Python numbers computed in {r.dtype}")
    return _with(tracer, r, number)


def _result(ufunc, inputs, types):
    """The PyNumber of Python's result, where the graph's int64/float64 compute it
    exactly; None where they might not."""
    if ufunc in _COMPARE:
        return PyNumber(bool, 0, 1)
    spans = [_interval(x) for x in inputs]
    # every int known within 2**53: exact as a float64 (a float is what it is)
    exact = all(t is float or s is not None and max(map(abs, s)) <= _EXACT_INT
                for s, t in zip(spans, types))
    if ufunc is np.true_divide:
        return PyNumber(float) if exact and _nonzero(inputs[1]) else None
    if any(t is float for t in types):
        return PyNumber(float) if exact and ufunc in (
            np.add, np.subtract, np.multiply, np.negative, np.positive, np.absolute) else None
    if any(s is None for s in spans):
        return None
    corners = _corners(ufunc, spans)
    if corners is None:
        return None
    lo, hi = min(corners), max(corners)
    return PyNumber(int, lo, hi) if -_EXACT_INT <= lo and hi <= _EXACT_INT else None


def _corners(ufunc, spans):
    """The values an int op takes at its operands' bounds (enough for monotone pieces:
    +, -, *, negation, abs), or None for another op."""
    if ufunc in (np.add, np.subtract, np.multiply):
        op = _PYTHON_OPERATOR[ufunc]
        (a0, a1), (b0, b1) = spans
        return [op(a, b) for a in (a0, a1) for b in (b0, b1)]
    if ufunc in (np.negative, np.positive):
        op = _PYTHON_OPERATOR[ufunc]
        return [op(v) for v in spans[0]]
    if ufunc is np.absolute:
        lo, hi = spans[0]
        return [abs(lo), abs(hi)] + ([0] if lo <= 0 <= hi else [])
    return None


def _nonzero(divisor):
    if type(divisor) in (int, float, bool):
        return divisor != 0
    span = _interval(divisor)
    return span is not None and (span[0] > 0 or span[1] < 0)


def numpy_operands(tracer, ufunc, inputs, kwargs):
    """inputs with each lazy Python number as the 0-d NumPy operand that gives NumPy's
    answer for the Python number, or read as its value where none does."""
    out = list(inputs)
    for i, x in enumerate(inputs):
        if is_python(x):
            dt = _operand_dtype(ufunc, inputs, i, kwargs)
            out[i] = as_numpy(tracer, x, dt) if dt is not None else x._force(
                "value_dtype", "NumPy's dtype for this Python number depends on its value")
    return tuple(out)


def _operand_dtype(ufunc, inputs, i, kwargs):
    x = inputs[i]
    if sum(is_python(y) for y in inputs) > 1:
        return None
    n = x._scalar
    if n.type is float:
        values = _FLOAT_VALUES
    elif n.type is bool:
        values = (False, True)
    elif n.lo is None:
        return None
    else:
        values = (n.lo, n.hi)
    others = [_stand_in(y) for y in inputs]
    kwargs = _stand_in_kwargs(kwargs)
    answers = {_dtypes(ufunc, others, i, v, kwargs) for v in values}
    if len(answers) != 1 or None in answers:
        return None
    want = answers.pop()
    tried = [getattr(y, "dtype", None) for y in inputs if y is not x] + [_NATURAL[n.type]]
    for dt in tried:
        # (a dtype the kernels do not compute in, '>f8' of an untraced operand: no cast)
        if dt is None or not traced_dtype(dt) or not _holds(dt, n, values):
            continue
        zero_d = [proto(dt, True)] if NUMPY2 else _value_candidates(dt, values)
        if all(_dtypes(ufunc, others, i, z, kwargs) == want for z in zero_d):
            return dt
    return None


def _stand_in(y):
    if is_python(y):
        return None
    if hasattr(y, "_n"):      # a LazyArray: NumPy decides on an empty array of its kind
        return proto(y.dtype, y.ndim == 0)
    if type(y) is np.ndarray and y.ndim:
        return proto(y.dtype, False)
    return y


def _stand_in_kwargs(kwargs):
    """kwargs with stand-ins for the lazy arrays in them: probing NumPy's dtypes with the
    traced `out=` itself wrote into it, a node per probe (`a *= n` of a 0-d int8 `a` and
    a lazy count n ran five multiplications; the fuzzer's seed 5973748), and into an
    untraced output the user's array itself (seed 5986258). An output gets an array of
    its own (a shared stand-in would keep the probe's value)."""
    if not kwargs:
        return kwargs
    out = dict(kwargs)
    for k, v in kwargs.items():
        if k == "out" and isinstance(v, tuple):     # traced or not (an untraced '>f8')
            out[k] = tuple(y if y is None else _nb.zeros((), y.dtype) if y.ndim == 0 else
                           _nb.empty((0,), y.dtype) for y in v)
        elif hasattr(v, "_n"):
            out[k] = _stand_in(v)
    return out


def _dtypes(ufunc, others, i, v, kwargs):
    args = list(others)
    args[i] = v
    try:
        with np.errstate(all="ignore"):
            r = ufunc(*args, **kwargs)
    except Exception:   # NumPy refuses this value (NEP 50: out of the array's range)
        return None
    return tuple(np.dtype(z.dtype) for z in (r if isinstance(r, tuple) else (r,)))


def _holds(dt, number, values):
    """Does dtype dt hold each value the number may take, exactly?"""
    if number.type is bool:
        return True
    if number.type is float:
        return dt == np.float64 or dt == np.complex128
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return info.min <= number.lo and number.hi <= info.max
    if dt.kind in "fc":
        m = 1 << (np.finfo(dt).nmant + 1)
        return -m <= number.lo and number.hi <= m
    return False


def _value_candidates(dt, values):
    """0-d arrays of dt at the number's values: what NumPy 1.x's value-based casting
    sees (it looks at a 0-d array's value, as at a Python number's)."""
    return [_nb.array(v, dt) for v in values]
