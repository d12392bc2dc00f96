"""Reductions of `x[m]` (a Selected, masked_select.py) whose result has a shape that does
not depend on how many elements m selects: `np.sum(x[m])`, `x[x > 0].mean()`, k-means'
`X[labels == k].mean(axis=0)`. Each is a NumPy step of the graph, NumPy's own reduction
of NumPy's compact array (graph/calls.py selected_reduction): its values, its summation
order and its errors, with no graph break. Before, each was a break, and a loop holding
one ran as written.

Which shapes are static is asked of NumPy: the reduction of a compact array of one
selected element and of two have the same shape (axis=None; axis 0, the compacted
one). Anything else (another axis, out=, where=, an array-valued argument) is left to
the caller, which makes the compact array as before."""
import inspect
import warnings

import numpy as np

from .. import compaction
from ..graph import calls
from ..graph.node import Ref
from .value_bounds import int_bounds

# np.<function> -> may it raise on an empty selection (then it runs even if unused, as
# NumPy raises at the call)
REDUCTIONS = {
    np.sum: False, np.prod: False, np.mean: False, np.std: False, np.var: False,
    np.any: False, np.all: False, np.nansum: False, np.nanmean: False, np.median: False,
    np.max: True, np.min: True, np.amax: True, np.amin: True, np.argmax: True,
    np.argmin: True, np.ptp: True, np.nanmax: True, np.nanmin: True,
}
# the ndarray methods of the same names, as their functions
METHODS = {"sum": np.sum, "prod": np.prod, "mean": np.mean, "std": np.std, "var": np.var,
           "any": np.any, "all": np.all, "max": np.max, "min": np.min,
           "argmax": np.argmax, "argmin": np.argmin}
_KWARGS = ("axis", "dtype", "ddof", "keepdims")
_STATIC = (type(None), bool, int, float, np.dtype, type)


def reduce(tracer, sel, fn, args, kwargs):
    """fn(sel, *args, **kwargs) as a graph step, or None (the caller makes the compact
    array and calls NumPy)."""
    if tracer is None or sel._mat is not None or fn not in REDUCTIONS:
        return None
    kw = _keywords(fn, args, kwargs)
    if kw is None:
        return None
    full, snap, lead = sel.full, sel.mask_snap, sel.lead
    before, after = full.shape[:lead], full.shape[lead + snap.ndim:]
    got = [_probe(fn, full.dtype, before + (k,) + after, kw) for k in (1, 2)]
    if got[0] is None or got[1] is None or got[0][:2] != got[1][:2]:
        return None       # a shape that follows the count (or NumPy refused the probe)
    dtype, shape, scalar = got[0]
    if lead:
        r = tracer.make(calls.selected_reduction, (Ref(0), Ref(1), fn, lead), kw or None,
                        (full._n, snap._n), dtype, shape, f"{fn.__name__}(x[mask])",
                        scalar=scalar)
    else:       # one compaction for every reduction of this selection (mean and std)
        r = tracer.make(calls.packed_reduction, (Ref(0), Ref(1), fn), kw or None,
                        (_packed(tracer, sel)._n, snap._n), dtype, shape,
                        f"{fn.__name__}(x[mask])", scalar=scalar)
    if REDUCTIONS[fn]:
        tracer.must_run.append(r)
    return r


def _packed(tracer, sel):
    """The selection's rows at the front of an array of the mask's size (compaction.packed),
    made once per selection and value of it: `sel.mean(), sel.std()` compacted twice, where
    NumPy's `sel = x[m]` compacts once (sigma clipping ran 0.70x NumPy compiled)."""
    full, snap = sel.full, sel.mask_snap
    kept = sel.packed
    if kept is None or kept[0] is not full._n:     # (`sel += 1` gives it a new value)
        node = tracer.make(compaction.packed, (Ref(0), Ref(1)), None, (full._n, snap._n),
                           full.dtype, (snap.size,) + full.shape[snap.ndim:], "x[mask]")
        kept = sel.packed = (full._n, node)
    return kept[1]


def _keywords(fn, args, kwargs):
    """The call's arguments by name, as NumPy's function binds them, when every one is
    a static Python value of those NumPy's reduction takes here; None otherwise."""
    sig = _SIGNATURES.get(fn)
    if sig is None:
        sig = _SIGNATURES[fn] = inspect.signature(fn)
    try:
        bound = sig.bind(None, *args, **kwargs).arguments
    except TypeError:
        return None
    kw = {k: v for k, v in list(bound.items())[1:]}
    for k, v in kw.items():
        if k not in _KWARGS or not _static(v):
            return None
    return kw


def _static(v):
    if type(v) is tuple:
        return all(type(x) is int for x in v)
    return isinstance(v, _STATIC)


_SIGNATURES = {}
# np.bincount's parameters (a C function: NumPy 1.x gives it no signature)
_BINCOUNT = inspect.signature(lambda x, weights=None, minlength=0: None)


def _probe(fn, dtype, shape, kw):
    """(dtype, shape, is it a NumPy scalar) of fn on a compact array of this shape."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with np.errstate(all="ignore"):
                r = fn(np.ones(shape, dtype), **kw)
    except Exception:
        return None
    if isinstance(r, np.ndarray):
        return r.dtype, r.shape, False
    if isinstance(r, np.generic):
        return r.dtype, (), True
    return None


def bincount(tracer, sel, args, kwargs, same_mask):
    """np.bincount(x[m], weights=w[m], minlength=n) as a graph step where its length is
    n whatever m selects: x's values are known, from how x was made, to lie in [0, n)
    (edge_prewitt's `np.bincount(sector[edges], minlength=4)` of a `% 4`). None: the
    caller's compact array and NumPy's call. `same_mask`: masked_select's test that
    weights=w[m] selects by the same mask."""
    try:
        bound = _BINCOUNT.bind(sel, *args, **kwargs).arguments
    except TypeError:
        return None
    weights, n = bound.get("weights"), bound.get("minlength", 0)
    full, snap = sel.full, sel.mask_snap
    if tracer is None or sel._mat is not None or sel.lead or snap.shape != full.shape or \
            type(n) is not int or n <= 0 or full.dtype.kind not in "iu":
        return None
    if weights is not None and (getattr(type(weights), "_npc_selected", False) is False or
                                weights._mat is not None or weights.lead or
                                weights.full.shape != full.shape or
                                not same_mask(sel.mask_node, weights.mask_node)):
        return None
    node = full._n     # (the selection's copy of x: x's own bounds)
    got = int_bounds(node.inputs[0] if node.fn is calls.copy else node)
    if got is None or got[0] < 0 or got[1] >= n:
        return None
    inputs = (full._n, snap._n) + ((weights.full._n,) if weights is not None else ())
    dtype = np.bincount(np.zeros(1, full.dtype), weights=None if weights is None else
                        np.zeros(1, weights.full.dtype), minlength=n).dtype
    return tracer.make(calls.selected_bincount, (Ref(0), Ref(1), Ref(2) if weights is not None
                                                 else None, n), None, inputs, dtype, (n,),
                       "bincount(x[mask])")

