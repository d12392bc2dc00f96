"""Random numbers join the trace. NumPy draws them in C, so a Monte Carlo function's
arrays were plain ndarrays and everything computed from them ran eagerly, untraced
(`x = rng.random(n); inside = x * x + y * y <= 1.0` compiled nothing). The draws still
run in NumPy, in the same order and from the same stream; their results enter the
trace as leaves, so what is computed from them fuses and compiles.

From the first trace on (creation.enter), np.random.default_rng returns a Generator
subclass whose sampling methods do that when the user's own code calls them during a
trace, and the legacy module functions (np.random.rand, normal, ...) are wrapped the
same way. Outside a trace, or called by library code, they are NumPy's: same stream,
same values, same types. Each draw is recorded on the trace (Draw): a call or a loop
body whose draws take plain numbers replays by drawing them again, in the same order,
from the generator it is handed (api/replay.py); one that draws from a generator it
was not handed, or with array arguments, is traced at every call."""
import sys

import numpy as np

from ..dtypes import traced_array
from .context import current, recording
from .lazy_array import LazyArray
from .user_calls import called_by_user

# Generator methods that return fresh samples
_SAMPLERS = (
    "random", "uniform", "normal", "standard_normal", "integers", "exponential",
    "standard_exponential", "poisson", "binomial", "gamma", "standard_gamma", "beta",
    "lognormal", "laplace", "logistic", "chisquare", "choice", "permutation", "rayleigh",
    "weibull", "geometric", "triangular", "standard_t", "standard_cauchy", "vonmises",
    "wald", "pareto", "power", "gumbel", "f", "negative_binomial", "hypergeometric", "zipf",
    "logseries", "noncentral_chisquare", "noncentral_f", "multivariate_normal",
    "multinomial", "dirichlet")
# the legacy module-level functions (np.random.rand(...), np.random.normal(...))
_LEGACY = (
    "rand", "randn", "random", "random_sample", "sample", "ranf", "uniform", "normal",
    "standard_normal", "randint", "exponential", "standard_exponential", "poisson",
    "binomial", "gamma", "beta", "lognormal", "laplace", "logistic", "chisquare", "choice",
    "permutation", "rayleigh", "weibull", "geometric", "triangular", "standard_t")

class Draw:
    """One draw in the user's code, as a replay makes it again: `fn(source, *args,
    **kwargs)` for a Generator method (source: the generator drawn from), `fn(*args,
    **kwargs)` for a legacy np.random function (source None). `value` is what it drew;
    `replayable` says whether the arguments are plain numbers (an array argument, or a
    sample Python goes on to read as a number, could steer the body unseen)."""

    __slots__ = ("fn", "source", "args", "kwargs", "value", "replayable", "at_step")

    def __init__(self, fn, source, args, kwargs, value, replayable, at_step=0):
        self.fn, self.source, self.args, self.kwargs = fn, source, args, kwargs
        self.value, self.replayable = value, replayable
        self.at_step = at_step    # how many steps of the call came before it


def _join(value, name, frame, fn, source, args, kwargs):
    """A fresh sample array as a leaf of the running trace (else as it is)."""
    tracer = recording()
    if tracer is None or not called_by_user(frame, name):
        return value
    tracer.mark_irreversible("it drew random numbers")  # a second run would draw others
    sample = traced_array(value)
    tracer.draws.append(Draw(fn, source, args, kwargs, value,
                             sample and _plain(args) and _plain(tuple(kwargs.values())),
                             len(tracer.steps)))
    if not sample:
        return value
    return tracer.wrap_constant_array(value, name, private=True)


def _keep_state(generator):
    """A loop body that may yet be refused keeps the state to draw from again."""
    tracer = recording()
    if tracer is not None and tracer.loop_values is not None:
        tracer.keep_rng_state(generator)


def _plain(values):
    return all(v is None or type(v) in (int, float, bool, str) or
               (type(v) is tuple and _plain(v)) for v in values)


# Draws of elements of an array: permutation(x) and choice(x, ...) draw exactly as
# permutation(len(x)) and choice(len(x), ...) do (the same shuffle or indices, from the
# same stream: checked under NumPy 1.24 and 2.x) and take those rows of x. Of a traced
# x they draw the indices, a leaf, and gather x's rows in the trace: NumPy's own call
# read x through np.may_share_memory, a graph break at every draw (a permutation test
# of 250 shuffles: 250 breaks). The legacy choice takes 1-d arrays only.
_BY_INDEX = ("permutation", "choice")


def _by_index(name, args, kwargs, one_dim=False):
    """(x, the arguments and keywords of the draw of indices) for permutation(x) and
    choice(x, ...) of a traced array x along its first axis; None where NumPy's own call
    is the way (not a traced array, a 0-d one, another axis, not these draws; one_dim:
    the legacy choice, which NumPy refuses for more dimensions)."""
    if name not in _BY_INDEX or not args or type(args[0]) is not LazyArray:
        return None
    x = args[0]
    if x.ndim < 1 or (one_dim and x.ndim > 1) or kwargs.get("axis", 0) != 0:
        return None
    return x, (x.shape[0],) + tuple(args[1:]), {k: v for k, v in kwargs.items() if k != "axis"}


def _sampler(name):
    base = getattr(np.random.Generator, name)

    def method(self, *args, **kwargs):
        rows = _by_index(name, args, kwargs)
        if rows is not None:
            x, args, kwargs = rows
        _keep_state(self)
        got = _join(base(self, *args, **kwargs), name, sys._getframe(1), base, self, args,
                    kwargs)
        return got if rows is None else x[got]
    method.__name__ = name
    method.__doc__ = base.__doc__
    return method


def _shuffle(x, axis, permutation, source, frame):
    """shuffle(x) of a traced array, in place: x[...] = x[permutation(len(x))], the
    same swaps from the same stream (checked under NumPy 1.24 and 2.x), the draw
    recorded as permutation's. NumPy's own shuffle took the traced array for a generic
    sequence and swapped rows through views: duplicates, a wrong result. True where it
    shuffled; False where NumPy's shuffle is the way."""
    rows = _by_index("permutation", (x,), {"axis": axis})
    if rows is None:
        return False
    _, args, _ = rows
    _keep_state(source)
    drawn = permutation(*args) if source is None else permutation(source, *args)
    x[...] = x[_join(drawn, "permutation", frame, permutation, source, args, {})]
    return True


class TracedGenerator(np.random.Generator):
    """np.random.Generator whose samples join the trace of the code that draws them."""

    def shuffle(self, x, axis=0):
        if not _shuffle(x, axis, np.random.Generator.permutation, self, sys._getframe(1)):
            np.random.Generator.shuffle(self, x, axis)


for _name in _SAMPLERS:
    if hasattr(np.random.Generator, _name):
        setattr(TracedGenerator, _name, _sampler(_name))
TracedGenerator.__name__ = TracedGenerator.__qualname__ = "Generator"


def _default_rng(original):
    def traced_rng(*args, **kwargs):
        """default_rng as a step of a plan (trace/steps.py) makes it again."""
        return TracedGenerator(original(*args, **kwargs).bit_generator)

    def default_rng(*args, **kwargs):
        g = original(*args, **kwargs)
        # any trace, a loops-only one too (trace/context.recording): a generator made
        # outside a loop is drawn from inside its compiled body, which must record it
        tracer = current()
        if type(g) is np.random.Generator and tracer is not None and \
                not (args and isinstance(args[0], np.random.Generator)) and \
                called_by_user(sys._getframe(1), "default_rng"):
            g = TracedGenerator(g.bit_generator)   # the same stream
            _as_step(tracer, traced_rng, args, kwargs, g)
            return g
        return g
    default_rng.__wrapped__ = original
    default_rng.__doc__ = original.__doc__
    return default_rng


def _as_step(tracer, make, args, kwargs, g):
    """A generator made from plain numbers (a seed, or none: fresh entropy, as NumPy
    draws at every call) is a step of the call's plan: a replay makes a new one, and
    the loops that draw from it draw its stream again (api/loop_step.py); anything else
    is no step, and the call does not replay."""
    from . import steps
    if not tracer.recording():
        return
    step = None
    if _plain(args) and _plain(tuple(kwargs.values())):
        step = steps.eager_step(make, args, kwargs, args, kwargs, g)
    if type(step) is tuple:
        tracer.steps.append(step)
    else:
        tracer.read_value("it makes a random generator from something other than plain "
                          "numbers" if step is None else f"default_rng: {step}")


def _legacy(name, original):
    def sample(*args, **kwargs):
        rows = _by_index(name, args, kwargs, one_dim=name == "choice")
        if rows is not None:
            x, args, kwargs = rows
        _keep_state(None)
        got = _join(original(*args, **kwargs), name, sys._getframe(1), original, None, args,
                    kwargs)
        return got if rows is None else x[got]
    sample.__name__ = name
    sample.__wrapped__ = original
    sample.__doc__ = original.__doc__
    return sample


def patch():
    """Called once, with the first trace (creation.enter)."""
    np.random.default_rng = _default_rng(np.random.default_rng)
    for name in _LEGACY:
        original = getattr(np.random, name, None)
        if original is not None:
            setattr(np.random, name, _legacy(name, original))
    np.random.shuffle = _legacy_shuffle(np.random.shuffle, np.random.permutation.__wrapped__)


def _legacy_shuffle(original, permutation):
    def shuffle(x):
        if not _shuffle(x, 0, permutation, None, sys._getframe(1)):
            original(x)
    shuffle.__wrapped__ = original
    shuffle.__doc__ = original.__doc__
    return shuffle
