"""The rule modules behind LazyArray's methods and NumPy protocols. lazy_array.py sits
below them (they make and inspect lazy arrays), so it reaches them through these names,
which trace/tracer.py binds when it loads: no lazy array exists before a tracer does."""
function_rules = inplace = library_rules = ufunc_rules = view_rules = None


def wire(**modules):
    globals().update(modules)
