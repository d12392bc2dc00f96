"""Storage: the memory behind one or more lazy arrays (a base and its views).

Between graph breaks the graph is functional: an in-place write makes a new version
of the storage's base, and every view re-derives its value from the newest base
through its chain of view operations. This is how `v = x[1:]; v += 1` updates `x`
exactly as NumPy's aliasing does, while the graph itself has no side effects.
"""
from .. import np_base as _nb
from ..graph.layout import fake_of
from ..graph.node import Node, Ref
from ..graph.view_step import ViewStep  # noqa: F401 (traced views record one)
from .native import core

_ref0 = Ref(0)


if core is not None:  # the fields as a C type: the op recorder makes storages directly
    _StorageFields = core.StorageBase
else:
    class _StorageFields:
        __slots__ = ("base", "target", "name", "version", "aliased", "guessed", "fake",
                     "fake_is_real", "__weakref__")


class Storage(_StorageFields):
    """`base` is the newest version of the whole array; `target` is the user's ndarray
    that receives the final value (inputs), or None for arrays the graph created."""

    __slots__ = ()

    def __init__(self, base, target=None, name=None):
        self.base = base
        self.target = target
        self.name = name
        self.version = 0
        self.aliased = False   # may share memory with another storage: writes run eagerly
        self.guessed = False   # a view's copy-or-view was decided on an assumed layout
        self.fake = None
        self.fake_is_real = False

    def base_fake(self):
        """The base's layout: the real array once concrete (views of it never read data),
        else a C-ordered stand-in, which is the layout an update() writes."""
        if self.fake is None:
            if self.base.is_leaf:
                value = self.base.value
                # a DeviceArray's layout, without copying its data to the host
                stand_in = getattr(value, "_stand_in", None)
                self.fake = stand_in() if stand_in is not None else _nb.asarray(value)
                self.fake_is_real = True
            else:
                self.fake = fake_of(self.base.dtype, self.base.shape)
                self.fake_is_real = False
        return self.fake

    def settle(self):
        """After a flush the base is concrete: forget layout guesses."""
        self.fake = None
        self.guessed = False

    def write(self, node):
        self.base = node
        self.version += 1


def view_node(step, parent, site=None):
    return Node(step.fn, (_ref0,) + tuple(step.args), step.kwargs, (parent,), step.dtype,
                step.shape, step.label, site)

