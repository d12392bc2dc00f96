"""A loop run as a body compiled on its own (api/loop_runner.py) as a step of its call
(trace/steps.py), so that the call as a whole replays (api/step_plan.py): a time loop
between a few setup operations and a result made from its values ran its body from a
plan already, but the call around it was traced again at every call, the setup and
the result included (0.1-1 ms a call, and no fusion of them either).

A replay runs the loop again on the values it reads then: every iteration runs the
body's own plan, as in the traced call. Taken only where the traced call ran every
iteration so (no iteration traced as written, no sinks: a list the body appends to is
Python state a replay would not see). What the loop hands back is checked: numbers must
be the recorded ones, an array it was given must come back as that same array (a
carried array updated in place), any other array is new. The arrays it was given may
be written: a replay that stops later gives the call's arguments among them their
values back."""
import functools

import numpy as np

from ..trace import steps as _steps
from . import loop_sinks


class _Stopped(Exception):
    """The replayed loop did not run every iteration from the body's plan."""


def record(tracer, runner, index, it, args, given, out, lineno):
    """Record the loop that just ran (`args` its values as the trace had them, `given`
    the concrete ones it started from, `out` what it handed back) as a step; where it
    cannot be one, the call does not replay, as before."""
    why = None
    if not tracer.recording():
        why = "no plan of steps is made of this call"
    elif type(it) is not range:
        why = "it runs over something other than a range"
    else:
        step = _steps.eager_step(functools.partial(_again, runner, index, it), tuple(args),
                                 None, tuple(given), {}, (it[-1],) + tuple(out),
                                 writes=[a for a in given if type(a) is np.ndarray],
                                 same=True)
        if type(step) is str:
            why = step
        else:
            tracer.steps.append(step)
            return
    tracer.read_value(f"its loop at line {lineno} runs as a body compiled on its own "
                      f"({why})")


def _again(runner, index, it, *args):
    site = runner.sites[index]
    values, fed = loop_sinks.feed(site.sinks, args)
    state = list(values)
    carry = [site.params.index(c) for c in site.carry]
    done, out, _, _ = runner._replayed(site, state, carry, it, fed)
    if done < len(it):
        raise _Stopped()
    return (it[-1],) + tuple(out)
