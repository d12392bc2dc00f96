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
    """Record the `for` loop that just ran (`args` its values as the trace had them,
    `given` the concrete ones it started from, `out` what it handed back) as a step;
    where it cannot be one, the call does not replay, as before."""
    if type(it) is not range:
        refused(tracer, lineno, "it runs over something other than a range")
    else:
        _record(tracer, functools.partial(_again, runner, index, it), args, given,
                (it[-1],) + tuple(out), lineno)


def record_while(tracer, runner, index, args, given, ran, exited, bound, lineno):
    """Record the `while` loop that just ran (`ran` iterations; `exited`: its exit test
    held; `bound`: what it binds, before they rejoin the trace) as a step."""
    _record(tracer, functools.partial(_while_again, runner, index), args, given,
            (ran > 0, exited) + (tuple(bound) if ran else ()), lineno)


def record_exit(tracer, runner, index, it, args, given, last, hit, bound, lineno):
    """Record the `for` loop with a convergence test that just ran (`last` its loop
    variable's last value, `hit` whether the test held, `bound` what it binds)."""
    if type(it) is not range:
        refused(tracer, lineno, "it runs over something other than a range")
    else:
        _record(tracer, functools.partial(_exit_again, runner, index, it), args, given,
                (last, hit) + tuple(bound), lineno)


def record_split(tracer, runner, index, it, names, args, given, out, lineno):
    """Record the `for` loop of segments and `if`s that just ran (api/loop_split.py):
    a replay runs its segments' compiled bodies and its `if`s in Python again, as the
    traced call did (`names`: the loop's values it was handed, in order)."""
    if type(it) is not range:
        refused(tracer, lineno, "it runs over something other than a range")
    elif any(type(v) in (list, dict, set) for v in given):
        # (what its ifs append to is Python state a replay would not see)
        refused(tracer, lineno, "a list, dict or set among its values")
    else:
        _record(tracer, functools.partial(_split_again, runner, index, it, tuple(names)),
                args, given, (it[-1],) + tuple(out), lineno)


def _record(tracer, again, args, given, result, lineno):
    if not tracer.recording():
        return refused(tracer, lineno, "no plan of steps is made of this call")
    # (an array no one can write, np.diag's view of an argument, is no write of it)
    step = _steps.eager_step(again, tuple(args), None, tuple(given), {}, result,
                             writes=[a for a in given if type(a) is np.ndarray and
                                     a.flags.writeable], same=True)
    if type(step) is str:
        return refused(tracer, lineno, step)
    tracer.steps.append(step)


def refused(tracer, lineno, why):
    """The loop is no step: a later call runs it again by tracing the call."""
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


def _while_again(runner, index, *args):
    site = runner.sites[index]
    values, fed = loop_sinks.feed(site.sinks, args)
    state = list(values)
    ran, out, bound = runner.while_again(site, state, fed)
    return (ran > 0, runner._exited[index]) + (tuple(bound) if ran else ())


def _exit_again(runner, index, it, *args):
    site = runner.sites[index]
    values, fed = loop_sinks.feed(site.sinks, args)
    last, hit, bound = runner.exit_again(site, it, list(values), fed)
    return (last, hit) + tuple(bound)


def _split_again(runner, index, it, names, *args):
    return (it[-1],) + runner.split_again(index, it, names, args)
