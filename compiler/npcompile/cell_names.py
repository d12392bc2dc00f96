"""A notebook cell's file and lines as reports name them. IPython compiles each cell
under a file name of its own (xeus-python: /tmp/xpython_<pid>/<hash>.py; ipykernel:
/tmp/ipykernel_<pid>/<hash>.py) and keeps which prompt number each one had: a break or
recompile in a function defined in a cell read `/tmp/xpython_31730/3129805791.py:6`,
where ipykernel's tracebacks say "Cell In[4], line 6". Reports say `<In [4]>`, as
%%npcompile names its cells (magics.py), and "In [4], line 6" where they print it.
Outside IPython a file keeps its name."""
import sys


def cell_file(count):
    """The file name reports give cell `count`: `<In [4]>`."""
    return f"<In [{count}]>"


def cell_label(filename):
    """`In [4]` for a cell's file name (cell_file), None for any other file."""
    return filename[1:-1] if filename.startswith("<In [") and filename.endswith("]>") \
        else None


def shown(filename):
    """`<In [n]>` for the file of cell n of the running IPython, else filename."""
    ipython = sys.modules.get("IPython")
    if ipython is None:
        return filename
    shell = ipython.get_ipython()
    names = getattr(getattr(shell, "compile", None), "_filename_map", None)
    count = names.get(filename) if isinstance(names, dict) else None
    return cell_file(count) if isinstance(count, int) else filename


def location(filename, lineno):
    """`In [4], line 6` for a cell, `file.py:6` for a file (the profiler's
    source_location says it the same way)."""
    label = cell_label(filename)
    return f"{label}, line {lineno}" if label else f"{filename}:{lineno}"
