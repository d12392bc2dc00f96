"""Which kernels of a graph take their sizes at run time (codegen/cpp.py's symbolic
kernels): those whose structure appears more than once in the graph with different
sizes. That is a loop over k whose slices move (A[k + 1:, k + 1:] -= ...): unrolled, it
is the same kernel at every size, and compiled with constant sizes it was one compile
per k (LU of 200: 199 kernels, 2 s). Kernels seen at one size only keep their sizes in
the text, where the optimizer unrolls and folds them."""


def sized_alike(steps):
    """Indexes of the kernel steps to render symbolic."""
    sizes_of = {}
    keys = {}
    for i, step in enumerate(steps):
        if step[0] != "kernel":
            continue
        key, sizes = _structure(step[1], step[2])
        keys[i] = key
        sizes_of.setdefault(key, set()).add(sizes)
    return {i for i, key in keys.items() if len(sizes_of[key]) > 1}


def _structure(roots, shape):
    """(what the kernel computes without its sizes, its sizes), by one walk."""
    index, parts, sizes = {}, [], [shape]
    stack = [e for _, e in roots]
    order = []
    while stack:               # post-order without recursion
        e = stack.pop()
        if id(e) in index:
            continue
        if e.kind == "load" or all(id(x) in index for x in e.inputs):
            index[id(e)] = len(parts)
            units = tuple(d == 1 for d in e.shape)
            if e.kind == "load":
                parts.append(("load", str(e.dtype), units))
            elif e.kind == "const":
                parts.append(("const", repr(e.op), str(e.dtype)))
            else:
                attrs = tuple(sorted((k, repr(v)) for k, v in e.attrs.items()))
                parts.append((e.kind, e.op, str(e.dtype), units, attrs,
                              tuple(index[id(x)] for x in e.inputs)))
            sizes.append(e.shape)
            order.append(e)
        else:
            stack.append(e)
            stack.extend(x for x in e.inputs if id(x) not in index)
    roots_at = tuple(index[id(e)] for _, e in roots)
    return (tuple(d == 1 for d in shape), tuple(parts), roots_at), tuple(sizes)
