"""The types of a compiled loop nest's values (codegen/scalar_nest.py): Python numbers,
NumPy scalars of the dtypes it takes (bool, every integer width signed and unsigned,
float32 and float64), arrays and one-dimensional slices, and how binary arithmetic
combines them as Python and NumPy do. Elements of fixed-width string arrays (<Un, Sn)
are typed by their dtype too, but only compared (codegen/scalar_nest_strings.py)."""
import ast

import numpy as np


class _PyType:
    """A Python number type. Not a string: NumPy dtypes compare equal to their names
    (np.dtype("float64") == "float"), which would make a NumPy float a Python one."""
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return self.name


PYINT, PYFLOAT, PYBOOL = _PyType("int"), _PyType("float"), _PyType("bool")
ARRAY = _PyType("array")    # a parameter that is an array
VEC = _PyType("slice")      # a one-dimensional float64 slice (scalar_nest_vectors.py)
MAT = _PyType("matrix")     # a two-dimensional one
SINK = _PyType("list")      # a list the nest appends numbers to (scalar_nest_lists.py)
F8, F4, I8, I4 = np.dtype("f8"), np.dtype("f4"), np.dtype("i8"), np.dtype("i4")
B1 = np.dtype("?")
INT_DTYPES = tuple(np.dtype(c) for c in "i8 i4 i2 i1 u8 u4 u2 u1".split())
U8 = np.dtype("u8")
ARRAY_DTYPES = (F8, F4) + INT_DTYPES + (B1,)
# NumPy 2's promotion (NEP 50): a Python number takes the NumPy scalar's dtype
NEP50 = int(np.__version__.split(".")[0]) >= 2
CT = {PYINT: "i64", PYFLOAT: "double", PYBOOL: "bool", F8: "double", F4: "float", B1: "bool",
      **{d: f"{d.kind}{8 * d.itemsize}" for d in INT_DTYPES}}
FLOAT_CT = ("double", "float")
# 2**53: integers beyond it are not all doubles
EXACT = 9007199254740992


# functions of one float: math.X and np.X alike (NumPy's names where they differ), and
# the libm function each is
UNARY_MATH = {"sqrt": "sqrt", "exp": "exp", "log": "log", "log10": "log10", "log2": "log2",
              "log1p": "log1p", "expm1": "expm1", "sin": "sin", "cos": "cos", "tan": "tan",
              "sinh": "sinh", "cosh": "cosh", "tanh": "tanh", "asin": "asin", "acos": "acos",
              "atan": "atan", "arcsin": "asin", "arccos": "acos", "arctan": "atan",
              "floor": "floor", "ceil": "ceil", "fabs": "fabs", "cbrt": "cbrt"}


class Unsupported(Exception):
    """This nest, with these argument types, runs as Python (the reason says why)."""


def is_np(t):
    return isinstance(t, np.dtype)


def is_int(t):
    return t in (PYINT, PYBOOL) or (is_np(t) and t.kind in "iu")


def is_str(t):
    """An element of a fixed-width string array (or a str/bytes constant)."""
    return is_np(t) and t.kind in "US"


def array_dtype(dtype):
    """Whether a compiled nest takes arrays of this dtype: the numbers above in native
    byte order, and fixed-width strings (whose elements it only compares)."""
    return dtype in ARRAY_DTYPES or (dtype.kind == "S" or (dtype.kind == "U" and
                                                           dtype.byteorder in "=<|"))


def int_range(t):
    """[lo, hi] of an integer type (Python ints are held as int64)."""
    if not is_np(t) or t.kind not in "iu":
        return -2 ** 63, 2 ** 63 - 1
    info = np.iinfo(t)
    return int(info.min), int(info.max)


def is_float(t):
    return t == PYFLOAT or (is_np(t) and t.kind == "f")


def type_of_value(v):
    """The type of a scalar argument, or None (an array, or a value not taken)."""
    t = type(v)
    if t is bool:
        return PYBOOL
    if t is int:
        return PYINT if -2 ** 63 <= v < 2 ** 63 else None
    if t is float:
        return PYFLOAT
    if isinstance(v, np.generic) and v.dtype in ARRAY_DTYPES and v.dtype.isnative:
        return v.dtype
    return None


BITS = ("&", "|", "^", "<<", ">>")


def arith(a, b, op):
    """The type of `a op b` as Python and NumPy compute it, or Unsupported."""
    if op in BITS:
        return _bitwise(a, b, op)
    sliced = [t for t in (a, b) if t is VEC or t is MAT]
    if sliced:      # elementwise, of one shape (NumPy's broadcasting is not followed)
        if op not in ("+", "-", "*", "/") or len(set(sliced)) != 1 or not all(
                t in (VEC, MAT, PYINT, PYFLOAT, PYBOOL) or (is_np(t) and t != B1)
                for t in (a, b)):
            raise Unsupported(f"{op} of a {a} and a {b}")
        return sliced[0]
    if is_str(a) or is_str(b):
        raise Unsupported(f"{op} of a string")
    if B1 in (a, b) and (a == b or PYBOOL in (a, b) or op not in ("+", "*", "/", "//", "%")):
        # of two bools NumPy's + and * are logical and - raises: refused
        raise Unsupported("arithmetic on a NumPy bool")
    if not is_np(a) and not is_np(b):
        if op == "/" or PYFLOAT in (a, b):
            return PYFLOAT
        return PYINT
    if is_np(a) and is_np(b):
        r = np.result_type(a, b)
        return F8 if op == "/" and r.kind != "f" else r
    n, p = (a, b) if is_np(a) else (b, a)
    if not NEP50:   # NumPy 1.x: a Python number next to a NumPy scalar is int64 or
        # float64 (a Python bool a NumPy bool)
        r = np.result_type(n, F8 if p is PYFLOAT else B1 if p is PYBOOL else I8)
        return F8 if op == "/" and r.kind != "f" else r
    if op == "/" and n.kind != "f":
        return F8
    if p == PYFLOAT and n.kind != "f":
        return F8
    if n == B1:     # a NumPy bool and a Python int: NumPy's default integer
        return I8
    return n


def numpy_result_type(name, args):
    """The dtype np.<name> gives for arguments of these types, asked of the NumPy that
    runs (np.sqrt of an int16 is a float32, of a uint8 a float16; np.floor of an int64
    an int64 under NumPy 2): float32, float64 or an integer, else Unsupported."""
    sample = {PYINT: 1, PYFLOAT: 1.0, PYBOOL: True}
    values = [sample[a] if not is_np(a) else a.type(1) for a in args]
    try:
        with np.errstate(all="ignore"):
            r = np.asarray(getattr(np, name)(*values)).dtype
    except Exception as e:      # (np.sign of a bool: NumPy's TypeError, raised by the loop)
        raise Unsupported(f"np.{name} of {', '.join(map(str, args))}: {e}") from None
    if r in (F4, F8) or r in INT_DTYPES:
        return r
    raise Unsupported(f"np.{name} of {', '.join(map(str, args))} is a {r}")


def _bitwise(a, b, op):
    """& | ^ << >> of integers and bools: of two bools & | ^ are logical (a NumPy bool
    if either is one); otherwise the integer type arithmetic would give, where NumPy has
    a loop for it (none for floats, nor for uint64 with a signed integer)."""
    for t in (a, b):
        if not (is_int(t) or t == B1):
            raise Unsupported(f"{op} of a {t}")
    if {a, b} <= {PYBOOL, B1}:
        if op in ("<<", ">>"):
            raise Unsupported(f"{op} of two bools")
        return B1 if B1 in (a, b) else PYBOOL
    r = arith(a, b, "+")
    if is_float(r):
        raise Unsupported(f"{op} of a {a} and a {b} (NumPy has no loop for them)")
    return r


def numpy_call(nest, f, names):
    """Is the callee `f` np.<name> (the nest's alias of numpy) for a name in names?"""
    return isinstance(f, ast.Attribute) and f.attr in names and \
        nest.modules.get(getattr(f.value, "id", None)) == "numpy"


def method_of(nest, e, names):
    """The receiver of E.name() (no arguments, E not a module) for a name in names, else
    None."""
    f = getattr(e, "func", None)
    if isinstance(e, ast.Call) and isinstance(f, ast.Attribute) and f.attr in names and \
            not e.args and not e.keywords and \
            not (isinstance(f.value, ast.Name) and f.value.id in nest.modules):
        return f.value
    return None
