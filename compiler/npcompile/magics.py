"""IPython magics of npcompile. The kernel registers every entry of MAGICS through
IPython's magic registry; `%load_ext npcompile` does the same in plain IPython."""

# (kind, name, function): kind is "line" or "cell"; filled by the magics issue.
MAGICS = []
