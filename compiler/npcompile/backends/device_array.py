"""DeviceArray: an array whose data lives in GPU memory (npcompile._native.cuda).

Compiled regions with device="cuda" return these and read them without a copy. Plain
NumPy code can still consume them: `np.asarray(d)`, ufuncs and NumPy functions copy the
data to the host first (each copy is a recorded transfer). Views (basic indexing,
reshape, transpose, ...) stay on the device: their layout is worked out by NumPy itself
on a stand-in array that spans the same bytes of host address space and is never read."""
import math
import sys
import time
import weakref

import numpy as np
from numpy.lib.mixins import NDArrayOperatorsMixin

from ..dtypes import register_device_type, traced_dtype
from ..graph.node import map_leaves
from ..memo import Memo
from ..records import SESSION
from .. import np_base  # np.empty itself makes lazy arrays while a trace runs
from .cuda_runtime import native

# NumPy functions that only re-describe memory: done on the stand-in, kept on the device.
# ndarray methods that write the array they are called on: through a DeviceArray they
# run on its host copy, which then goes back (d.sort() sorted a copy nobody kept)
_WRITING_METHODS = frozenset({"sort", "partition", "fill", "put", "itemset", "setfield",
                              "byteswap"})

_VIEW_FUNCTIONS = {np.reshape, np.transpose, np.swapaxes, np.squeeze, np.expand_dims,
                   np.broadcast_to, np.moveaxis, np.ravel, np.atleast_1d, np.atleast_2d}


# Host copies of device buffers' bytes, kept while nothing writes the buffer: what went
# up by to_device, or a host-held result's values once uploaded. A read of them (get(),
# and so every NumPy function given a DeviceArray) copies from here instead of waiting
# for a download: the NumPy path of device="cuda" read each input back from the GPU at
# every use. Every write to a buffer goes through DeviceArray.set (kernels write only
# buffers they were given new), and set drops the copy first. Keyed weakly: it lives
# as long as its buffer.
_mirrors = weakref.WeakKeyDictionary()
# Buffers larger than this keep no host copy: it would double the host memory of data
# large enough that the compiled path wins anyway.
MIRROR_MAX = 64 << 20


def _mirror_of(buffer):
    return _mirrors.get(buffer) if buffer is not None else None


class _Flags:
    __slots__ = ("c_contiguous", "f_contiguous", "writeable")

    def __init__(self, shape, strides, itemsize, writeable):
        self.c_contiguous = _contiguous(shape, strides, itemsize)
        self.f_contiguous = _contiguous(shape[::-1], strides[::-1], itemsize)
        self.writeable = writeable


def _contiguous(shape, strides, itemsize):
    """NumPy's rule: dimensions of size 1 may have any stride; empty arrays are contiguous."""
    if 0 in shape:
        return True
    expect = itemsize
    for d, s in zip(reversed(shape), reversed(strides)):
        if d != 1:
            if s != expect:
                return False
            expect *= d
    return True


class DeviceArray(NDArrayOperatorsMixin):
    """`buffer` (npcompile._native.cuda.Buffer) holds the bytes; shape, dtype, byte
    strides and byte offset describe this view of them, as for an ndarray."""

    __array_priority__ = 100
    # A result of plain NumPy (the path choice's host path) stays on the host until the
    # GPU needs it: uploaded on its buffer's first use, or read back by get() without a
    # transfer. Returned eagerly, a small program's result crossed the bus twice per
    # call (up, then down to the caller), and ran at half of NumPy's speed.
    _host_copy = None

    def __init__(self, buffer, shape, dtype, strides=None, offset=0, writeable=True):
        self._buffer = buffer
        self.dtype = np.dtype(dtype)
        self.shape = tuple(int(d) for d in shape)
        if strides is None:
            strides = _c_strides(self.shape, self.dtype.itemsize)
        self.strides = tuple(int(s) for s in strides)
        self.offset = int(offset)
        self._writeable = writeable
        self._flags = None

    # ----- making them ---------------------------------------------------------------
    @classmethod
    def empty(cls, shape, dtype):
        dtype = np.dtype(dtype)
        n = math.prod(shape) * dtype.itemsize
        return cls(native().Buffer(n), shape, dtype)

    @classmethod
    def with_layout(cls, buffer, shape, dtype, strides, offset, writeable):
        """A view whose layout is already normalized (tuples of ints, an np.dtype): the
        per-call path of compiled programs, which checked the layout once."""
        self = cls.__new__(cls)
        self._buffer, self.shape, self.dtype, self.strides = buffer, shape, dtype, strides
        self.offset, self._writeable, self._flags = offset, writeable, None
        return self

    @classmethod
    def owned(cls, a):
        """on_host(a, copy=False) of a C-ordered ndarray that no one else holds, with
        nothing asked that the caller knows (the NumPy path of device="cuda" hands
        every call's result over: each step here costs a small program 1% on the GPU
        machine's host)."""
        # the host array's layout is already normalized: __init__'s checks cost as much
        # as a small program's NumPy path on the GPU machine (tanh_diag, 70 us a call)
        self = cls.with_layout(None, a.shape, a.dtype, _c_strides(a.shape, a.itemsize), 0, True)
        self._host_copy = a
        return self

    @classmethod
    def from_host(cls, array):
        """A copy of a host array on the device (a recorded host-to-device transfer). The
        array may be the caller's: it is not kept as the buffer's host copy."""
        d = cls.on_host(array, copy=False)
        d._upload(mine=False)
        return d

    @classmethod
    def on_host(cls, array, copy=True):
        """A device array of a host array's values (copied: later writes to it do not
        show; copy=False for an array no one else holds), uploaded only when its buffer
        is first used."""
        # NumPy's own functions, not the tracing wrappers the numpy module holds from the
        # first trace on (each looks at its caller's frame: most of the 10-15 us per
        # result that the NumPy path of device="cuda" cost on the H200's host)
        a = np_base.array(array, order="C", copy=True) if copy else np_base.asarray(array)
        if not a.flags.c_contiguous:  # (a copy in C order; 0-d stays 0-d)
            a = np_base.array(a, order="C", copy=True)
        return cls.owned(a)

    @property
    def buffer(self):
        """npcompile._native.cuda.Buffer; a host-held array is uploaded now, and from
        then on the device holds its values (a write through any view lands there)."""
        b = self._buffer
        return b if b is not None else self._upload(mine=True)

    def _upload(self, mine):
        """The host-held array into a new buffer. `mine`: the array is this one's own
        (on_host copied it, or no one else holds it), so it stays the buffer's host copy
        (up to MIRROR_MAX); the caller's own array would change unseen."""
        a = self._host_copy
        b = native().Buffer(a.nbytes)
        t0 = time.perf_counter()
        if a.nbytes:
            native().upload(b, 0, a)
        record_transfer("h2d", a.nbytes, t0)
        self._buffer, self._host_copy = b, None
        if mine and a.nbytes <= MIRROR_MAX:
            _mirrors[b] = a.reshape(-1).view(np.uint8)
        return b

    # ----- metadata ------------------------------------------------------------------
    device = "cuda"
    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: math.prod(self.shape))
    itemsize = property(lambda self: self.dtype.itemsize)
    nbytes = property(lambda self: self.size * self.dtype.itemsize)
    @property
    def flags(self):
        if self._flags is None:  # the layout never changes: computed once
            self._flags = _Flags(self.shape, self.strides, self.itemsize, self._writeable)
        return self._flags
    T = property(lambda self: self.transpose())

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    @property
    def pointer(self):
        """The device address of element [0, ..., 0]."""
        return self.buffer.ptr + self.offset

    # ----- to the host -------------------------------------------------------------------
    def get(self):
        """The values as a new host ndarray (a recorded device-to-host transfer)."""
        if self._host_copy is not None:
            return self._host_copy.copy()
        mirror = _mirror_of(self._buffer)
        if mirror is not None:
            return np.ndarray(self.shape, self.dtype, mirror, self.offset, self.strides).copy()
        t0 = time.perf_counter()
        if self.flags.c_contiguous:
            out = np_base.empty(self.shape, self.dtype)
            if out.nbytes:
                native().download(out, self.buffer, self.offset)
        else:
            out = self._span()[2].copy()
        record_transfer("d2h", out.nbytes, t0)
        return out

    def _span(self):
        """The smallest span of bytes that holds this view, copied to the host: (span, its
        first byte's offset from element [0, ..., 0], this view of it as an ndarray)."""
        lo, hi = _byte_span(self.shape, self.strides, self.itemsize)
        span = np_base.empty(hi - lo, np.uint8)
        if span.nbytes:
            native().download(span, self.buffer, self.offset + lo)
        return span, lo, np.ndarray(self.shape, self.dtype, span, -lo, self.strides)

    def __array__(self, dtype=None, copy=None):
        a = self.get()
        return a if dtype is None else a.astype(dtype, copy=False)

    def item(self, *args):
        return self.get().item(*args)

    def tolist(self):
        return self.get().tolist()

    def __bool__(self):
        return bool(self.get())

    def __float__(self):
        return float(self.get())

    def __int__(self):
        return int(self.get())

    def __index__(self):
        return self.get().__index__()

    def __round__(self, *ndigits):
        # round() of a 0-d result is Python's rounding of NumPy's scalar, as on the host
        return round(self.get()[()], *ndigits)

    def __repr__(self):
        body = np.array2string(self.get(), separator=", ", prefix="DeviceArray(")
        return f"DeviceArray({body}, dtype={self.dtype}, device='cuda')"

    __str__ = __repr__

    # ----- views: NumPy works out the layout on a stand-in --------------------------------
    def _stand_in(self):
        """An ndarray with this view's layout for the tracer, which may reshape it in any
        order: host pages behind it, so that a copy NumPy makes reads mapped memory."""
        return self._layout(True)[0]

    def _layout(self, real):
        """(stand-in, address of byte 0 of the buffer in it): an ndarray with this view's
        layout whose data nobody reads. NumPy's view functions only do arithmetic on its
        pointer; one that may copy (reshape of a non-contiguous view) gets `real` host
        pages to copy from (virtual memory, never written)."""
        if real:
            host = np_base.empty(self.buffer.nbytes, np.uint8)
            a = np.ndarray(self.shape, self.dtype, host, self.offset, self.strides)
            origin = host.__array_interface__["data"][0]
        else:
            origin = _NOWHERE
            a = _at_address(origin + self.offset, self.shape, self.dtype, self.strides)
        if not self._writeable:
            a.flags.writeable = False
        return a, origin

    def _view(self, fn, *args, **kwargs):
        # a C-order reshape of C-contiguous data never copies; anything else might
        may_copy = fn in (np.reshape, np.ravel) and not (
            self.flags.c_contiguous and kwargs.get("order", "C") == "C" and
            len(args) <= (1 if fn is np.reshape else 0))
        s, origin = self._layout(may_copy)
        r = fn(s, *args, **kwargs)
        if not isinstance(r, np.ndarray) or (r.size and not np.may_share_memory(r, s)):
            return _to_device_like(fn(self.get(), *args, **kwargs))  # NumPy copied: so do we
        start = r.__array_interface__["data"][0]
        return DeviceArray(self.buffer, r.shape, r.dtype, r.strides, start - origin,
                           r.flags.writeable)

    def __getitem__(self, key):
        if _basic_index(key):
            # with `...` an all-integer index gives a 0-d view, not a scalar read
            keys = key if isinstance(key, tuple) else (key,)
            if Ellipsis not in keys:
                keys = keys + (Ellipsis,)
            return self._view(lambda a: a[keys])
        return _to_device_like(self.get()[key])  # advanced indexing copies in NumPy too

    def __setitem__(self, key, value):
        target = self[key] if key != () else self
        if not isinstance(target, DeviceArray):
            raise TypeError("npcompile: assignment through advanced indexing of a DeviceArray "
                            "is not supported; use np.asarray(d) and npcompile.to_device")
        target.set(value)

    def reshape(self, *shape, order="C"):
        shape = shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
        return self._view(np.reshape, shape, order=order)

    def transpose(self, *axes):
        axes = axes[0] if len(axes) == 1 and isinstance(axes[0], (tuple, list)) else axes
        return self._view(np.transpose, axes or None)

    def swapaxes(self, a, b):
        return self._view(np.swapaxes, a, b)

    def squeeze(self, axis=None):
        return self._view(np.squeeze, axis)

    def ravel(self, order="C"):
        return self._view(np.ravel, order)

    def copy(self):
        if self.flags.c_contiguous:
            out = DeviceArray.empty(self.shape, self.dtype)
            if self.nbytes:
                native().copy(out.buffer, 0, self.buffer, self.offset, self.nbytes)
            return out
        return DeviceArray.from_host(self.get())

    def astype(self, dtype, copy=True):
        if np.dtype(dtype) == self.dtype and not copy:
            return self
        return DeviceArray.from_host(self.get().astype(dtype))

    # ----- writes --------------------------------------------------------------------------
    def set(self, value):
        """Write `value` (broadcast and cast as np.copyto would) into this view."""
        if not self._writeable:
            raise ValueError("assignment destination is read-only")
        if isinstance(value, DeviceArray) and value.shape == self.shape and \
                value.dtype == self.dtype and value.flags.c_contiguous and self.flags.c_contiguous:
            _mirrors.pop(self.buffer, None)   # written on the device: the host copy is stale
            if self.nbytes:
                native().copy(self.buffer, self.offset, value.buffer, value.offset, self.nbytes)
            return
        value = np.asarray(value)   # a device value (maybe of these very bytes) is read first
        mirror = _mirror_of(self.buffer)
        if self.flags.c_contiguous:
            host = np_base.empty(self.shape, self.dtype)
            np.copyto(host, value, casting="unsafe")
            t0 = time.perf_counter()
            if host.nbytes:
                native().upload(self.buffer, self.offset, host)
            record_transfer("h2d", host.nbytes, t0)
            if mirror is not None:  # the same bytes into the host copy: it stays valid
                mirror[self.offset:self.offset + host.nbytes] = host.reshape(-1).view(np.uint8)
            return
        # A strided view: read the span of bytes it covers, write the view's elements
        # into it on the host, and put the span back. The bytes between the elements go
        # back as they were read; the stream orders this after every kernel before it.
        if 0 in self.shape:
            return
        if mirror is not None:      # the span as the device holds it, and written the same
            lo, hi = _byte_span(self.shape, self.strides, self.itemsize)
            span = mirror[self.offset + lo:self.offset + hi]
            view = np.ndarray(self.shape, self.dtype, span, -lo, self.strides)
        else:
            t0 = time.perf_counter()
            span, lo, view = self._span()
            record_transfer("d2h", span.nbytes, t0)
        np.copyto(view, value, casting="unsafe")
        t0 = time.perf_counter()
        native().upload(self.buffer, self.offset + lo, span)
        record_transfer("h2d", span.nbytes, t0)

    def __getattr__(self, name):
        """ndarray's other methods and attributes (x.max(), x.mean(axis=0), x.real...) on
        the host copy, as NumPy functions are: a loop's condition tested in Python on a
        compiled body's results (api/loop_runner.py) reads them like ndarrays."""
        if name.startswith("_") or not hasattr(np.ndarray, name):
            raise AttributeError(f"'DeviceArray' object has no attribute '{name}'")
        host = self.get()
        copies = [(self, host)]
        attr = getattr(host, name)
        if not callable(attr):    # d.T, d.real: views of the device array, as NumPy's are
            return _device_views(attr, copies)

        def method(*args, **kwargs):
            if name == "resize":   # in place, it would resize a copy and leave d as it was
                raise ValueError("cannot resize a DeviceArray in place: use np.resize")
            result = attr(*_host(args), **_host(kwargs))
            if name in _WRITING_METHODS:   # d.sort(), d.fill(0): they wrote the host copy
                self.set(host)
            return _device_views(result, copies)   # d.view(), d.diagonal(): write-through
        return method

    # ----- NumPy protocols: views stay on the device, everything else runs on the host --
    def __array_function__(self, func, types, args, kwargs):
        if func in _VIEW_FUNCTIONS and args and args[0] is self:
            return self._view(func, *args[1:], **kwargs)
        if func in (np.may_share_memory, np.shares_memory):
            a, b = args[0], args[1]
            if isinstance(a, DeviceArray) and isinstance(b, DeviceArray):
                # NumPy's own answer (bounds, or exact) on arrays at made-up addresses
                return a.buffer is b.buffer and func(a._layout(False)[0], b._layout(False)[0])
            return False  # host and device memory never overlap
        if func is np.copyto and isinstance(args[0], DeviceArray):
            # NumPy's own call on a host copy: its casting rule, where= and broadcast
            # (set() alone cast anything, unsafe, and ignored the mask)
            target = args[0]
            host = target.get()
            np.copyto(host, *_host(args[1:]), **_host(kwargs))
            target.set(host)
            return None
        copies = []     # (device array, its host copy) handed to NumPy

        def host(x):
            if type(x) is not DeviceArray:
                return x
            h = x.get()
            copies.append((x, h))
            return h
        result = func(*map_leaves(args, host), **map_leaves(kwargs, host))
        if not copies:
            return result
        # a view NumPy made of a host copy (np.einsum('ii->i', d), a transpose) is that
        # view of the device array: writing into it writes d, as NumPy's view writes
        # its operand (it wrote the copy, and d kept its values)
        return _device_views(result, copies)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if "out" in kwargs and any(isinstance(o, DeviceArray) for o in kwargs["out"]):
            # NumPy's call into host copies of the outputs, then back: its casting
            # rule (`d *= 0.5` of an int array raises), where= and its dtype are NumPy's
            # (the result made apart and set() into d cast it silently)
            outs = kwargs.pop("out")
            hosts = tuple(o.get() if isinstance(o, DeviceArray) else o for o in outs)
            getattr(ufunc, method)(*_host(inputs), out=hosts, **_host(kwargs))
            for o, h in zip(outs, hosts):
                if isinstance(o, DeviceArray):
                    o.set(h)
            return outs[0] if len(outs) == 1 else outs
        if method == "at" and isinstance(inputs[0], DeviceArray):
            # np.add.at(d, idx, v) writes into d: on a host copy, then back (on the copy
            # alone the device kept its old values)
            target = inputs[0]
            host = target.get()
            ufunc.at(host, *_host(inputs[1:]), **_host(kwargs))
            target.set(host)
            return None
        return getattr(ufunc, method)(*_host(inputs), **_host(kwargs))


register_device_type(DeviceArray)


def results_to_device(obj):
    """A result of plain NumPy as the compiled path on the GPU returns it: arrays and
    NumPy scalars as DeviceArrays (0-d for scalars), inside tuples, lists and dicts."""
    box = [obj]
    del obj     # the box holds the result alone: its reference count says who else does
    return results_in(box)


def results_in(box):
    """results_to_device of box[0], for a caller that holds the result only in a list
    of one (a name of the caller's would count as another holder, and force copies)."""
    x = box[0]
    if type(x) is tuple:    # the usual many results, taken apart here: one call less each
        return tuple([_result_in(x, i) for i in range(len(x))])
    del x
    return _result_in(box, 0)


def _result_in(container, key):
    x, refs = _held(container, key)
    t = type(x)
    if t in _PLAIN:     # (the usual leaves beside arrays: an iteration count, a flag)
        return x
    if t is np.ndarray and refs <= _ALONE and x.base is None and x.flags.c_contiguous \
            and traced_dtype(x.dtype):
        return DeviceArray.owned(x)   # the usual result: made by the call, in C order
    if t is np.ndarray or isinstance(x, np.generic):
        if not traced_dtype(x.dtype):
            return x
        if t is not np.ndarray:     # a NumPy scalar: its 0-d array is a fresh C-ordered copy
            return DeviceArray.owned(np_base.array(x))
        # an array nothing else holds (made by the call, not an argument, a global or a
        # view of one) is kept as it is; another is copied, so that later writes to it
        # do not show (a copy of a large result cost as much as NumPy's own work)
        return DeviceArray.on_host(x, copy=not (refs <= _ALONE and _owns(x)))
    if t is tuple or t is list:
        return t([_result_in(x, i) for i in range(len(x))])
    if t is dict:
        return {k: _result_in(x, k) for k in list(x)}
    return x


def _owns(x):
    """No other array shares x's memory: x owns it, or x is the one view of an array
    nothing else holds (np.nonzero's rows are views of one index array: a sieve's
    primes were copied at every call)."""
    b = x.base
    if b is None:
        return True
    if type(b) is not np.ndarray or b.base is not None:
        return False
    del b       # (a name here would count as one more holder)
    return _base_refs(x) <= _BASE_ALONE


def _base_refs(x):
    b = x.base
    return sys.getrefcount(b)


_PLAIN = frozenset((int, float, bool, complex, str, type(None)))


def _held(container, key):
    """(container[key], its reference count here)."""
    x = container[key]
    return x, sys.getrefcount(x)


# the count _held sees for an array held only by its container (measured, not assumed:
# it differs between interpreters)
_ALONE = _held([np.empty(0)], 0)[1]
# the count _base_refs sees for a base held by its one view alone (measured, as _ALONE)
_BASE_ALONE = _base_refs(np.empty(2)[1:])


def synchronize():
    """Wait for the GPU's queued work: a compiled call returns before its kernels end."""
    native().synchronize()


def _c_strides(shape, itemsize):
    key = (shape, itemsize)
    got = _C_STRIDES.get(key)
    if got is None:     # (every result the NumPy path hands to the GPU asks)
        got = _C_STRIDES[key] = _c_strides_of(shape, itemsize)
    return got


def _c_strides_of(shape, itemsize):
    strides, s = [], itemsize
    for d in reversed(shape):
        strides.append(s)
        s *= max(d, 1)
    return tuple(reversed(strides))


_C_STRIDES = Memo(4096)


def _byte_span(shape, strides, itemsize):
    lo = hi = 0
    for d, s in zip(shape, strides):
        if d == 0:
            return 0, 0
        if s < 0:
            lo += (d - 1) * s
        else:
            hi += (d - 1) * s
    return lo, hi + itemsize


_NOWHERE = 1 << 44   # a made-up host address for stand-ins that are never read


class _Interface:
    """An ndarray description at any address: NumPy only does pointer arithmetic on it."""

    def __init__(self, address, shape, dtype, strides):
        self.__array_interface__ = {"data": (address, False), "shape": shape,
                                    "typestr": dtype.str, "strides": strides, "version": 3}


def _at_address(address, shape, dtype, strides):
    return np.asarray(_Interface(address, shape, dtype, strides))


def _basic_index(key):
    keys = key if isinstance(key, tuple) else (key,)
    return all(k is None or k is Ellipsis or isinstance(k, (slice, int, np.integer))
               and not isinstance(k, (bool, np.bool_)) for k in keys)


def _device_views(result, copies):
    """result with each ndarray view of a host copy in copies made that view of the
    device array (writing into it writes the device array, as NumPy's view writes its
    operand; it wrote the copy, and the device array kept its values)."""
    return map_leaves(result, lambda r: _device_view(r, copies)
                      if type(r) is np.ndarray else r)


def _device_view(r, copies):
    """r as a view of the device array whose host copy it views, where the copy has the
    device array's own layout; else r as it is."""
    for d, h in copies:
        if r is h:      # the copy itself (a.real of a real array is a)
            return d
    if r.base is None:
        return r
    for d, h in copies:
        if h.strides == d.strides and np.may_share_memory(r, h):
            delta = r.__array_interface__["data"][0] - h.__array_interface__["data"][0]
            return DeviceArray.with_layout(d.buffer, r.shape, r.dtype, r.strides,
                                           d.offset + delta, d._writeable and r.flags.writeable)
    return r


def _host(obj):
    return map_leaves(obj, lambda x: x.get() if type(x) is DeviceArray else x)


def _to_device_like(value):
    return DeviceArray.from_host(value) if isinstance(value, np.ndarray) else value


def record_transfer(direction, nbytes, t0):
    SESSION.add("transfers", {"direction": direction, "bytes": int(nbytes),
                              "ms": (time.perf_counter() - t0) * 1e3})


def to_device(array):
    """A host array (or anything np.asarray takes) copied to the GPU as a DeviceArray;
    a DeviceArray is returned as it is. A copy of its values stays on the host (up to
    MIRROR_MAX) until the device's are written."""
    if isinstance(array, DeviceArray):
        return array
    a = np.asarray(array)
    mine = a.nbytes <= MIRROR_MAX       # copied, to be the host copy; else uploaded as it is
    d = DeviceArray.on_host(a, copy=mine)
    d._upload(mine)
    return d
