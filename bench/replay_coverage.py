"""Which programs of a corpus replay whole calls, and why the others do not: each program
jitted with choose=False (the compiled path alone) and called three times on copies of
its inputs; then its replay plan's kind (Plan: one graph; StepPlan: graphs, eager calls,
reads and loops, api/step_plan.py) or the first reason in `replay_refusals`, counted.

    /usr/bin/python3 bench/replay_coverage.py [DIR ...]     (default: bench/programs)
"""
import collections
import copy
import glob
import os
import sys
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_programs  # noqa: E402


def verdict(jitted):
    if jitted._plans:
        return type(next(iter(jitted._plans.values()))).__name__
    reasons = list(jitted.replay_refusals.values())
    if not reasons:
        return "(no plan and no reason: past the break budget, plain NumPy)"
    why = reasons[0]
    return why if "reads array values" in why else why.split(" (")[0]


def main():
    warnings.simplefilter("ignore")
    import npcompile
    dirs = sys.argv[1:] or [os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                         "programs")]
    counts, names = collections.Counter(), collections.defaultdict(list)
    for d in dirs:
        run_programs.PROGRAMS = d
        for path in sorted(glob.glob(os.path.join(d, "*.py"))):
            name = os.path.basename(path)[:-3]
            try:
                mod = run_programs.load_program(name)
                inputs = mod.make_inputs("small")
                jitted = npcompile.jit(mod.run, choose=False)
                for _ in range(3):
                    jitted(*copy.deepcopy(inputs))
                why = verdict(jitted)[:120]
            except Exception as e:  # noqa: BLE001 - a program's own error, counted
                why = f"error {type(e).__name__}"
            counts[why] += 1
            names[why].append(name)
    for why, n in counts.most_common():
        print(f"{n:4d}  {why}  [{', '.join(names[why][:6])}{', ...' if n > 6 else ''}]")


if __name__ == "__main__":
    main()
