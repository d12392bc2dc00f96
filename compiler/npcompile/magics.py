"""IPython magics of npcompile. The kernel registers every entry of MAGICS through
IPython's magic registry (C++, kernel/); `%load_ext npcompile` does the same in plain
IPython.

    %%npcompile [--device cpu|cuda] [--fullgraph] [--report] [--dynamic|--static]
    %npcompile on|off            trace every cell (auto mode)
    %npcompile_report [--last|--all] [--json]
"""
import argparse
import contextlib
import itertools
import shlex
import sys

from . import auto_mode
from .cell_names import cell_file

_cell_numbers = itertools.count(1)
CELL_USAGE = "%%npcompile [--device cpu|cuda] [--fullgraph] [--report] [--dynamic|--static]"
REPORT_USAGE = "%npcompile_report [--last|--all] [--json]"


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise ValueError(message)


def _cell_parser():
    p = _Parser(prog="%%npcompile", add_help=False)
    p.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    p.add_argument("--fullgraph", action="store_true")
    p.add_argument("--report", action="store_true")
    # (auto mode's own: the cell has no magic line of its own, so its lines count from 1)
    p.add_argument("--auto", action="store_true", help=argparse.SUPPRESS)
    g = p.add_mutually_exclusive_group()
    g.add_argument("--dynamic", dest="dynamic", action="store_const", const=True, default=None)
    g.add_argument("--static", dest="dynamic", action="store_const", const=False)
    return p


def _usage_error(usage, message):
    from IPython.core.error import UsageError
    return UsageError(f"{message}\nusage: {usage}")


def _shell():
    from IPython import get_ipython
    return get_ipython()


def _trim_traceback(exc, filename):
    """The user's error shows their cell's frames, not npcompile's."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != filename:
        tb = tb.tb_next
    return exc.with_traceback(tb) if tb is not None else exc


def npcompile_cell(line, cell):
    from .api.cell import run_cell
    try:
        args = _cell_parser().parse_args(shlex.split(line))
    except ValueError as e:
        raise _usage_error(CELL_USAGE, str(e)) from None
    shell = _shell()
    ns = shell.user_ns if shell is not None else sys.modules["__main__"].__dict__
    filename = _cell_name(shell)
    from .records import SESSION
    first = SESSION.total("traces")
    # A report shows the speedup over eager NumPy: its cell pays one eager run per new graph.
    from .exec import eager_timing
    measure = eager_timing.measuring() if args.report else contextlib.nullcontext()
    try:
        with measure:
            # an empty first line for the magic's own: lines count as the cell's editor
            # and ipykernel's "Cell In[4], line 6" count them
            result = run_cell(("" if args.auto else "\n") + cell, ns, device=args.device,
                              fullgraph=args.fullgraph, dynamic=args.dynamic, filename=filename)
    except Exception as e:
        raise _trim_traceback(e, filename) from None
    finally:
        if args.report:
            from .report_widget import show
            show(since_trace=first)
    return result


def _cell_name(shell):
    """The traced cell's file name in reports: `<In [n]>` after its prompt number, or a
    count of ours where the shell keeps none."""
    count = getattr(shell, "execution_count", None)
    if isinstance(count, int) and count > 0:
        name = cell_file(count)
        # IPython's tracebacks then say "Cell In [4], line 6" for it, as for a plain cell
        names = getattr(getattr(shell, "compile", None), "_filename_map", None)
        if isinstance(names, dict):
            names[name] = count
        return name
    return f"<npcompile cell {next(_cell_numbers)}>"


def npcompile_line(line):
    """%npcompile on|off: trace every cell from now on, or stop."""
    word = line.strip().lower()
    shell = _shell()
    if word not in ("on", "off") or shell is None:
        raise _usage_error("%npcompile on|off   (or %%npcompile as a cell magic)",
                           f"unknown argument {line.strip()!r}" if word else "missing on|off")
    auto_mode.set_auto(word == "on", shell)
    print(f"npcompile: automatic tracing {word}")


def npcompile_report(line):
    from .report_widget import show
    words = shlex.split(line)
    if any(w not in ("--last", "--all", "--json") for w in words) or (
            "--last" in words and "--all" in words):
        raise _usage_error(REPORT_USAGE, f"unknown arguments {line.strip()!r}")
    show(last="--all" not in words, as_json="--json" in words)


# (kind, name, function): kind is "line" or "cell".
MAGICS = [
    ("cell", "npcompile", npcompile_cell),
    ("line", "npcompile", npcompile_line),
    ("line", "npcompile_report", npcompile_report),
]


def load_ipython_extension(ip):
    for kind, name, fn in MAGICS:
        ip.register_magic_function(fn, magic_kind=kind, magic_name=name)
