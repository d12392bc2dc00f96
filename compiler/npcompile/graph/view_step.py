"""One view operation of a traced array, with constant arguments: what a storage's view
chain holds, and what a graph's signature compares."""


class ViewStep:
    """One view operation (getitem, reshape, transpose, ...) with constant arguments."""

    __slots__ = ("fn", "args", "kwargs", "label", "dtype", "shape")

    def __init__(self, fn, args, kwargs, label, dtype, shape):
        self.fn = fn
        self.args = args
        self.kwargs = kwargs
        self.label = label
        self.dtype = dtype
        self.shape = shape

    def apply(self, value):
        return self.fn(value, *self.args, **(self.kwargs or {}))

    def same_as(self, other):
        return (self.fn is other.fn and self.label == other.label
                and _same(self.args, other.args) and self.kwargs == other.kwargs)


def _same(a, b):
    try:
        return bool(a == b)
    except Exception:  # arrays in a key compare elementwise
        return False
