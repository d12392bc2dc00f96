"""Which arrays the tracer takes over: the one answer every layer asks (trace rules,
replay keys, the GPU's host path). Depends on NumPy (and memo.py) only; the GPU's array type
registers itself here (backends/device_array.py), so that the tracer knows it without
importing the backends."""
import numpy as np

from .memo import Memo

# NumPy 2's promotion (NEP 50: Python numbers are weak) or NumPy 1.x's value-based casting
NUMPY2 = np.lib.NumpyVersion(np.__version__) >= "2.0.0"
# dtype kinds traced: bool, signed, unsigned, float, complex. Others (object, strings,
# datetimes) stay plain ndarrays and run in NumPy as usual.
TRACED_KINDS = frozenset("biufc")
# float widths the kernels take (long double runs in NumPy); float16 is computed as NumPy
# computes it, in float32 rounded after each operation (fusion/half.py)
_FLOAT_SIZES = {"f": (2, 4, 8), "c": (8, 16)}


def traced_dtype(dt):
    """Does the tracer take over arrays of this dtype? Its kind, in native byte order
    (a kernel reads memory in the machine's order: '>f8' data read as '<f8' gave wrong
    numbers), and a float width the kernels have. Asked for every argument of every
    call (the path choice's key): answered once per dtype."""
    got = _TRACED.get(dt)
    if got is None:
        kind = dt.kind
        got = _TRACED[dt] = kind in TRACED_KINDS and dt.isnative and \
            (kind not in _FLOAT_SIZES or dt.itemsize in _FLOAT_SIZES[kind])
    return got


_TRACED = Memo(1024)   # dtype -> traced_dtype's answer (structured dtypes: no end of them)
TRACED_MEMO = _TRACED  # read by the C argument key (trace_core/ArgKey.cpp) before it asks


def untraced_reason(dt):
    """Why arrays of this dtype are not traced, in words (None when they are)."""
    if traced_dtype(dt):
        return None
    if dt.kind not in TRACED_KINDS:
        return f"{dt} arrays are not numbers the kernels compute"
    if not dt.isnative:
        return "its bytes are in non-native order"
    return f"kernels do not compute {dt} (NumPy's own precision is kept)"


def traced_array(value):
    """An ndarray of a traced dtype."""
    return type(value) is np.ndarray and traced_dtype(value.dtype)


# array types of other devices whose values enter a trace as leaves (DeviceArray)
DEVICE_TYPES = set()


def register_device_type(t):
    DEVICE_TYPES.add(t)


def traceable(value):
    """An ndarray, or a registered device array, of a traced dtype."""
    t = type(value)
    return (t is np.ndarray or t in DEVICE_TYPES) and traced_dtype(value.dtype)


def dtype_key(dtype):
    """A dtype as part of a cache key: with its char, since uint64 'L' and ulonglong 'Q'
    (int64 'l' and longlong 'q') are equal dtypes of one hash that NumPy keeps apart,
    down to the type of its scalars (np.uint64, np.ulonglong). None stays None (a node
    of no array value)."""
    return (dtype, dtype.char) if dtype is not None else None
