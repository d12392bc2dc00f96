"""Auto mode (%npcompile on|off): every cell that is not already a magic runs under
%%npcompile. Asked and switched by the magic and by the report widget's checkbox.

The transform is one of IPython's cleanup transforms, which run before magics are turned
into Python: as a post transform it added `%%npcompile` to code that was Python by then,
and every cell after `%npcompile on` failed with a SyntaxError, `%npcompile off` too."""


def _shell():
    from IPython import get_ipython
    return get_ipython()


def is_on(shell=None):
    """Whether every cell is traced."""
    shell = shell or _shell()
    return shell is not None and transform in shell.input_transformers_cleanup


def set_auto(on, shell=None):
    """Trace every cell from now on, or stop (without the magic's message)."""
    shell = shell or _shell()
    if shell is None:
        return
    transforms = shell.input_transformers_cleanup
    transforms[:] = [t for t in transforms if t is not transform]
    if on:
        transforms.append(transform)


def transform(lines):
    """A cell's lines under %%npcompile, unless it is a magic or a shell command."""
    if lines and not lines[0].lstrip().startswith(("%", "!")):
        return ["%%npcompile --auto\n"] + lines
    return lines
