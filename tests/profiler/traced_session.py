"""Writes the session file of a small traced program into DIR and prints its path: one
graph break, one recompile (float64 -> float32), several kernels; with --html PAGE, also
the notebook report of it as a whole HTML page. Run in a fresh process so that the session
holds exactly this program. Used by the viewer and report screenshot tests. With --fixed,
the same program with its graph break fixed (np.where in place of the `if`): the "after"
of npcompile-viewer --compare."""
import argparse

import numpy as np

import npcompile
from npcompile._native import profiler as prof


def make_step(fixed):
    """The program, jitted; `fixed`: its graph break fixed, under the same name (what a
    before/after comparison matches functions by)."""
    def step(x, y):
        z = np.sin(x) * 2.0 + np.cos(y)
        if fixed:  # both branches in the graph: no break
            z = np.where(z.sum() > 0, z - z.mean(), z)
        elif z.sum() > 0:  # Python needs a bool: a graph break
            z = z - z.mean()
        return np.exp(-z * z).sum()
    return npcompile.jit(step)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("--html", help="also write the report page here")
    ap.add_argument("--fixed", action="store_true", help="the program with its break fixed")
    args = ap.parse_args()
    run = make_step(args.fixed)
    x = np.linspace(0.0, 1.0, 100_000)
    y = np.linspace(1.0, 2.0, 100_000)
    for _ in range(3):
        run(x, y)
    run(x.astype(np.float32), y)  # a dtype change: a recompile
    print(prof.session_file(args.dir))
    if args.html:
        from make_sample_report import page  # beside this script
        with open(args.html, "w", encoding="utf-8") as f:
            f.write(page(prof.render_html()))


if __name__ == "__main__":
    main()
