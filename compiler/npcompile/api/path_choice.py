"""The cheapest path per argument layout: compiled, the function as plain NumPy, (for a
function with loops) its loops compiled and the rest of it plain NumPy, or (device="cuda",
host arrays) the function compiled for the host's CPU.

Compiling does not always pay: a loop over tiny arrays costs more in tracing and
launches than NumPy spends computing, and a graph that is one BLAS call gains nothing.
So a jitted function measures both sides on real calls and keeps the faster. For
each argument key (api/replay.py's: dtypes, shapes, strides, scalar values) the calls
after the first (which compiles) are timed on the compiled path, the next ones run the
original function eagerly, and from then on the faster path runs. Eager NumPy is the
oracle of every result, so the NumPy path is correct by definition; it is a visible
choice, recorded in the report ("path_choices") with both times and the reason.

On the GPU (device="cuda") the NumPy path runs on the host and returns its results as
DeviceArrays held on the host until the GPU needs them (device_array.on_host), so both
paths return DeviceArrays; a compiled
call is timed to the end of its kernels (a synchronize), not to their launch.

The third path ("loops", where the caller offers it): the function's own code runs as
plain NumPy on its arguments and each loop it has runs as its body compiled once, in
C++ (api/loop_runner.py), as on the compiled path. A call that traces its code outside
the loops at every call (a loop's exit test reads values, so the call as a whole never
replays) paid 0.2 to 1.8 ms per call for tracing a few setup operations that NumPy
runs in microseconds: a Cholesky by rows ran 9.7x NumPy compiled and 19x this way.

The other third path ("host", offered with device="cuda" where the arguments are host
arrays and the CPU backend is built): the function compiled for the CPU, its results
handed to the GPU as the NumPy path's are. Programs of a few milliseconds on small
arrays are bound by launches and transfers on a GPU: on the H200 57 of 105 corpus
programs chose plain NumPy, where the same programs compiled for the host's cores ran
1.5-8x NumPy (cavity_flow's loop nest 7.7x)."""
import os

# calls timed on each side before choosing (the first compiled call, which compiles,
# is not one of them), taken in turns (compiled, NumPy, compiled, ...): a neighbour busy
# for a few calls slows both sides alike, where three compiled calls then three NumPy
# ones chose NumPy for a Cholesky nest 1.6x faster compiled (the busy spell fell on the
# compiled calls). The middle of each side's times is compared: on a shared
# machine a call can be slowed by a neighbour (2 samples chose NumPy for a stencil the
# compiled path runs 1.3-2.3x faster), and the fastest of 3 favoured a side whose times
# spread (householder_qr kept compiled on one quick call, 0.86x NumPy on the rest)
SAMPLES = 3
# The faster side wins (the median of SAMPLES calls each), the compiled path only by
# more than this margin: a near tie is noise on a shared machine, and a BLAS-bound loop
# (lr_schedule_gd) kept compiled on a 2% lead ran 0.81-0.86x NumPy in later calls.
# (A margin in the compiled path's favour, 0.9 once, kept rk4 compiled at 34.6 ms
# against NumPy's 31.9, that is 0.92x NumPy for good.)
MARGIN = 1.05
# After a choice, one call in this many runs the other path, and the choice is made
# again on the latest samples: a neighbour that slowed the sampling calls (or a change
# in the data a loop runs on) does not lock in the slower path for good.
RECHECK = 64
# The first recheck comes this many calls after the first choice (each confirmation of
# a clear choice doubles the wait, up to RECHECK and beyond): a choice made in noise is
# undone within a few calls, not 64.
FIRST_RECHECK = 8
# A recheck that finds the loser at least CLEAR times slower doubles the interval to
# the next one, up to RECHECK_MAX calls: a compiled path 3x slower than NumPy, rechecked
# every 64 calls, cost 3.5% of every call for good (0.965x NumPy where NumPy was chosen).
CLEAR = 1.5
RECHECK_MAX = 1024


# the most calls before a choice: the compiling call, then SAMPLES timed calls per path
WARMUP_CALLS = 3 * SAMPLES + 1
# The chosen path between rechecks, but for the SAMPLES calls before each (the samples a
# recheck compares): counted, not timed. Timing and recording a call cost about 1.5 us
# of the jit's 6 us per call, which a program of 0.1 ms on the NumPy path pays in full.
UNTIMED = {p: p + ", untimed" for p in ("numpy", "compiled", "loops", "host")}
UNTIMED_OF = {v: p for p, v in UNTIMED.items()}
# how a reason names the third path's time
_THIRD_TIME = {"loops": "with its loops alone compiled", "host": "compiled on the host"}


def enabled_default():
    return os.environ.get("NPC_CHOOSE_PATH", "1") != "0"


class _State:
    __slots__ = ("calls", "compiled", "numpy", "third", "third_name", "choice", "generation",
                 "settled", "again", "interval", "recheck_at", "turn")

    def __init__(self, generation):
        self.generation = generation
        self.calls = 0
        self.compiled = []
        self.numpy = []
        self.third = None       # the third path's samples, where one is offered
        self.third_name = None  # which: "loops" or "host"
        self.turn = 0           # rechecks take the other paths in turns
        self.choice = None
        self.settled = False    # NumPy for good, never timed again (settle())
        self.again = False      # the call under way compiles again (retry())
        self.interval = RECHECK
        self.recheck_at = 0     # the call count at which the other path runs again


class PathChooser:
    """Per argument key: which path the next call takes, and what it measured."""

    # keys kept per function, the oldest dropped first (a function called on ever-new
    # sizes keeps measuring, which costs nothing but the compiled path's own time)
    MAX_KEYS = 64

    def __init__(self, session, function):
        self.session = session
        self.function = function
        self._states = {}

    def _state(self, key, generation):
        """This key's measurements, begun again after npcompile.reset() (a new
        generation): the compiled programs they timed are gone, and the next compiled
        call compiles again."""
        st = self._states.get(key)
        if st is None or st.generation != generation:
            if st is None and len(self._states) >= self.MAX_KEYS:
                del self._states[next(iter(self._states))]
            st = self._states[key] = _State(generation)
        return st

    def next_path(self, key, generation=0, third=None, *args):
        """'numpy', 'compiled' or the `third` path offered ('loops', True for it, or
        'host') for the call about to run with this argument key; 'settled' once it runs
        as plain NumPy for good (settle()), untimed. A callable `third` is asked (with
        `args`) only where this key has no third path yet: it looks at every argument,
        which a call on the chosen path need not pay again."""
        st = self._state(key, generation)
        if st.settled:
            return "settled"
        if third is not None and st.third is None:
            if callable(third):
                third = third(*args) if st.calls == 0 else None
            if third:
                st.third, st.third_name = [], "loops" if third is True else third
        if st.choice is not None:
            if st.calls >= st.recheck_at:
                others = [p for p in _paths(st) if p != st.choice]
                return others[st.turn % len(others)]
            if st.calls + SAMPLES < st.recheck_at:
                st.calls += 1
                return UNTIMED[st.choice]
            return st.choice
        if st.calls == 0:            # the compiling call (not timed)
            return "compiled"
        return min(_paths(st), key=lambda p: len(_samples(st, p)))

    def lend_untimed(self, key, generation=0):
        """After a call next_path sent untimed down the NumPy path: the untimed calls
        left before the samples of the next recheck (the caller grants them to its C
        base, which runs them without asking, and counts those made: count_calls), or 0."""
        st = self._state(key, generation)
        if st.settled or st.choice != "numpy":
            return 0
        return max(st.recheck_at - SAMPLES - st.calls, 0)

    def count_calls(self, key, n, generation=0):
        """n calls made on a grant (lend_untimed), untimed."""
        self._state(key, generation).calls += n

    def settle(self, key, generation=0):
        """Plain NumPy for this key from now on, with no rechecks: its trace outgrew the
        op budget (trace/budget.py), so every compiled call would trace that far again.
        The caller reports why."""
        st = self._state(key, generation)
        st.choice, st.settled = "numpy", True

    def retry(self, key, generation=0):
        """The call under way ran as plain NumPy, over its trace's break budget only by
        the graphs it compiled (trace/budget.RETRIES): its time is not a sample, and the
        next call like it is traced again as a first call."""
        self._state(key, generation).again = True

    def record(self, key, path, seconds, generation=0):
        st = self._state(key, generation)
        if st.settled:
            return
        if st.again:
            st.again = False
            return
        st.calls += 1
        if st.choice is None and st.calls == 1:
            return                   # the first call compiled: not a warm time
        samples = _samples(st, path)
        samples.append(seconds)
        if st.choice is None:
            if all(len(_samples(st, p)) >= SAMPLES for p in _paths(st)):
                self._choose(st)
            return
        del samples[:-SAMPLES]       # after the choice, the newest samples of each side
        if path != st.choice:        # a recheck: they decide again
            st.turn += 1
            self._choose(st, again=True)

    def _choose(self, st, again=False):
        compiled, numpy = _middle(st.compiled), _middle(st.numpy)
        other, name = (_middle(st.third), st.third_name) if st.third else (None, None)
        before = st.choice
        fastest = name if other is not None and other < compiled else "compiled"
        best = other if fastest == name else compiled
        on = " on the GPU" if name == "host" else ""
        if numpy < MARGIN * best:
            st.choice = "numpy"
            reason = (f"plain NumPy is faster for these arguments "
                      f"({numpy * 1e3:.3f} ms against {compiled * 1e3:.3f} ms compiled{on}" +
                      (f", {other * 1e3:.3f} ms {_THIRD_TIME[name]}" if other is not None
                       else "") + "): compiling does not pay here")
        elif fastest == "loops":
            st.choice = "loops"
            reason = (f"its loops compiled and the rest plain NumPy is fastest "
                      f"({other * 1e3:.3f} ms against {compiled * 1e3:.3f} ms all compiled "
                      f"and {numpy * 1e3:.3f} ms in plain NumPy)")
        elif fastest == "host":
            st.choice = "host"
            reason = (f"compiled for the host's CPU, its results handed to the GPU, is "
                      f"fastest ({other * 1e3:.3f} ms against {compiled * 1e3:.3f} ms "
                      f"compiled on the GPU and {numpy * 1e3:.3f} ms in plain NumPy)")
        else:
            st.choice = "compiled"
            reason = (f"compiled is faster ({compiled * 1e3:.3f} ms against "
                      f"{numpy * 1e3:.3f} ms in plain NumPy)" if compiled < numpy else
                      f"compiled and plain NumPy take the same time ({compiled * 1e3:.3f} ms): "
                      f"compiled kept")
        fast, slow = sorted((best, numpy))
        if not again:
            st.interval = FIRST_RECHECK
        elif st.choice == before and slow >= CLEAR * fast:
            st.interval = min(2 * st.interval, RECHECK_MAX)   # confirmed, and clearly
        elif st.choice == before and st.interval < RECHECK:
            st.interval = min(2 * st.interval, RECHECK)       # confirmed, closely
        else:
            st.interval = RECHECK
        st.recheck_at = st.calls - 1 + st.interval   # counted from this call
        if again and st.choice == before:
            return                   # unchanged: nothing new to report
        record = {"function": self.function, "choice": st.choice, "compiled_ms": compiled * 1e3,
                  "numpy_ms": numpy * 1e3, "reason": reason}
        if other is not None:
            record[f"{name}_ms"] = other * 1e3
        self.session.add("path_choices", record)


def _paths(st):
    return ("compiled", "numpy") if st.third is None else ("compiled", "numpy", st.third_name)


def _samples(st, path):
    return st.compiled if path == "compiled" else st.numpy if path == "numpy" else st.third


def _middle(times):
    """The median of a side's samples (the lower middle of an even count)."""
    ordered = sorted(times)
    return ordered[(len(ordered) - 1) // 2]
