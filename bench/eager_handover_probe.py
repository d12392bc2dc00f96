"""Where device="cuda"'s NumPy path (the jit's _eager) loses time against NumPy on one
program: NumPy, the wrapper's own check of the GPU, the hand-over of the result, and the
whole _eager, each timed in rotating turns (medians, us).

    python bench/eager_handover_probe.py jacobi_iteration [--reps 300]
"""
import copy
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_programs import load_program  # noqa: E402


def main():
    name = sys.argv[1]
    reps = int(sys.argv[3]) if len(sys.argv) > 3 else 300
    import npcompile
    from npcompile.backends.cuda_runtime import available
    from npcompile.backends.device_array import results_in
    mod = load_program(name)
    inputs = mod.make_inputs("small")
    jf = npcompile.jit(mod.run, device="cuda")
    for _ in range(40):
        jf(*copy.deepcopy(inputs))
    sides = {
        "numpy": mod.run,
        "numpy, result kept a moment": lambda *a: [mod.run(*a)][0],
        "numpy + available()": lambda *a: (available(), mod.run(*a))[1],
        "numpy + results_in": lambda *a: results_in([mod.run(*a)]),
        "_eager": jf._eager,
        "jit": jf,
    }
    times = {k: [] for k in sides}
    names = list(sides)
    for rep in range(reps):
        for k in names[rep % len(names):] + names[:rep % len(names)]:
            args = copy.deepcopy(inputs)
            t0 = time.perf_counter()
            sides[k](*args)
            times[k].append(time.perf_counter() - t0)
    # how many of the jit's calls took its Python path (not a grant from C): the path
    # choice's rechecks and the calls that count a used grant
    slow = [0]
    cls = type(jf)
    python_call = cls._call

    def counted(self, *a, **k):
        slow[0] += 1
        return python_call(self, *a, **k)
    cls._call = counted
    for _ in range(reps):
        jf(*copy.deepcopy(inputs))
    cls._call = python_call
    print(f"{name:18s} {reps} more jit calls, {slow[0]} of them through its Python path")
    base = statistics.median(times["numpy"])
    for k, v in times.items():
        m = statistics.median(v)
        print(f"{name:18s} {k:30s} {m * 1e6:8.1f} us  numpy/this {base / m:.3f}")


if __name__ == "__main__":
    main()
