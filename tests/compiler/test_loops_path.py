"""The path choice's third path (api/path_choice.py): the function's own code as plain
NumPy on its arguments, each of its loops compiled on its own. Checked against eager
NumPy on corpus programs (values, dtypes, the caller's arrays), with the same loops
compiled as on the compiled path, and the choice among three paths on given times."""
import copy
import os
import warnings

import numpy as np
import pytest

import npcompile
from npcompile.api import path_choice
from npcompile.api.path_choice import PathChooser
from npcompile.records import Session

from conftest import DEVICE, same
from test_native_loop import corpus_module
from test_trace_loops import COMPILED

PROGRAMS = ["heat1d", "heat2d", "wave2d", "jacobi2d", "gauss_seidel_rb", "newton_sqrt",
            "power_iteration", "conjugate_gradient", "bisection_roots", "kepler_bisection",
            "cholesky", "lu", "lu_pivot", "triangular_solve", "gram_schmidt",
            "levenshtein_rows", "lcs_dp", "viterbi", "monte_carlo_pi", "random_walk",
            "gillespie_sir", "rk4_lotka_volterra", "verlet_lj", "seir_sweep", "iir_biquad",
            "ema_filter", "game_of_life", "rule110", "floyd_warshall", "burgers_upwind",
            "sor", "minibatch_logreg"]


def _compiled_loops(rep):
    """The loops that ran compiled on their own: a body compiled once, or a nest. (A loop
    traced as written into the call's graph, "one compiled kernel", runs as plain NumPy
    on the loops path, as the rest of the function does.)"""
    return sorted(lp["lineno"] for lp in rep["loops"]
                  if "one compiled body" in lp["summary"] or "compiled function" in lp["summary"])


@pytest.mark.skipif(DEVICE == "cuda", reason="the loops path is the host's")
@pytest.mark.parametrize("name", PROGRAMS)
def test_a_corpus_program_on_the_loops_path(name):
    mod = corpus_module(name)
    inputs = mod.make_inputs("small")
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        eager_args = copy.deepcopy(inputs)
        exp = mod.run(*eager_args)
        npcompile.reset()
        npcompile.jit(mod.run, choose=False)(*copy.deepcopy(inputs))
        compiled = _compiled_loops(npcompile.report())
        j = npcompile.jit(mod.run, choose=False)
        npcompile.reset()
        reports = []
        for _ in range(2):      # the second call replays the loop bodies' plans
            args = copy.deepcopy(inputs)
            got = j._loops_call(args, {})
            same(got, exp)
            for g, e in zip(args, eager_args):
                if isinstance(e, np.ndarray):
                    same(g, e)
            reports.append(npcompile.report())
        rep = reports[0]
    if COMPILED:
        # the same loops compile as on the compiled path, and nothing outside them
        # was traced: no graph break, no fallback
        assert _compiled_loops(rep) == compiled or not compiled, (rep["loops"], compiled)
        assert reports[1]["graph_breaks"] == [] and reports[1]["fallbacks"] == []


def _choose(times, third=True):
    """A PathChooser fed the given time per path, with `third` offered (True: the loops
    path; "host"; False: none): the choice and its record."""
    session = Session()
    c = PathChooser(session, "f")
    for _ in range(path_choice.WARMUP_CALLS):
        path = c.next_path("k", 0, third)
        if path not in path_choice.UNTIMED_OF:     # the choice between rechecks: untimed
            c.record("k", path, times[path], 0)
    return c, session.path_choices


def test_the_fastest_of_three_paths_is_chosen():
    c, rec = _choose({"compiled": 3e-3, "numpy": 2e-3, "loops": 1e-3})
    assert [r["choice"] for r in rec] == ["loops"] and rec[0]["loops_ms"] == 1.0
    assert "loops compiled" in rec[0]["reason"]
    _, rec = _choose({"compiled": 3e-3, "numpy": 2e-3, "loops": 2.05e-3})
    assert [r["choice"] for r in rec] == ["numpy"]      # within the margin: NumPy
    _, rec = _choose({"compiled": 1e-3, "numpy": 2e-3, "loops": 1.5e-3})
    assert [r["choice"] for r in rec] == ["compiled"]
    _, rec = _choose({"compiled": 1e-3, "numpy": 2e-3}, third=False)
    assert [r["choice"] for r in rec] == ["compiled"] and "loops_ms" not in rec[0]


def test_rechecks_take_the_other_paths_in_turns():
    c, _ = _choose({"compiled": 3e-3, "numpy": 2e-3, "loops": 1e-3})
    seen = set()
    for _ in range(4 * path_choice.RECHECK_MAX):
        path = c.next_path("k", 0, True)
        if path in path_choice.UNTIMED_OF:
            continue
        c.record("k", path, {"compiled": 3e-3, "numpy": 2e-3, "loops": 1e-3}[path], 0)
        seen.add(path)
    assert seen == {"compiled", "numpy", "loops"}
    nxt = c.next_path("k", 0, True)
    assert path_choice.UNTIMED_OF.get(nxt, nxt) in ("loops", "compiled", "numpy")


@pytest.mark.skipif(DEVICE == "cuda", reason="the loops path is the host's")
def test_a_jitted_function_with_loops_times_three_paths():
    mod = corpus_module("heat1d")
    inputs = mod.make_inputs("small")
    exp = mod.run(*copy.deepcopy(inputs))
    npcompile.reset()
    j = npcompile.jit(mod.run, choose=True)
    for _ in range(path_choice.WARMUP_CALLS + 2):   # every path's values are NumPy's
        same(j(*copy.deepcopy(inputs)), exp)
    (rec,) = npcompile.report()["path_choices"]
    assert {"compiled_ms", "numpy_ms", "loops_ms"} <= rec.keys()
    assert rec["choice"] in ("compiled", "numpy", "loops")
