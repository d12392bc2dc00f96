"""Which kernels of a graph take their sizes (and constants) at run time (codegen/cpp.py's
symbolic kernels): those whose structure has been seen at two or more sizes or constants,
in this graph or an earlier one. That is a loop over k whose slices move
(A[k + 1:, k + 1:] -= ...): unrolled into one graph, or cut into one graph per iteration
by a data-dependent `if`, it is the same kernel at every k, and compiled with constant
sizes it was one compile per k (LU of 200: 199 kernels, 2 s; LU with pivoting, one graph
per k: 7.2 s). Kernels seen at one size only keep their sizes in the text, where the
optimizer unrolls and folds them."""


# Structures compiled before, in earlier graphs, with the sizes they had: a loop whose
# body breaks the graph (a data-dependent `if`) makes one graph per iteration, and its
# moving slices change the sizes each time. From the second size on such a kernel is
# symbolic, and its text is the same at every later size: the JIT's cache answers.
_SEEN = {}
_SEEN_MAX = 4096


def sized_alike(steps, seen=_SEEN):
    """Indexes of the kernel steps to render symbolic."""
    sizes_of = {}
    keys = {}
    for i, step in enumerate(steps):
        if step[0] != "kernel":
            continue
        key, sizes = _structure(step[1], step[2])
        keys[i] = key
        sizes_of.setdefault(key, set()).add(sizes)
    for key, sizes in sizes_of.items():
        if key not in seen and len(seen) >= _SEEN_MAX:
            # the oldest structure this graph does not have: one it has, dropped, was
            # a KeyError below (a long test session filled the table)
            seen.pop(next(k for k in seen if k not in sizes_of))
        known = seen.setdefault(key, set())
        if len(known) < 2:   # two sizes decide it: symbolic from then on, for good
            known.update(sizes)
    return {i for i, key in keys.items() if len(seen[key]) > 1}


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
                parts.append(("load", e.dtype, units))
            elif e.kind == "const":       # its value is run-time data when symbolic
                parts.append(("const", e.dtype))
                sizes.append(("value", repr(e.op)))
            elif e.kind == "view":   # its offsets and multipliers are run-time sizes
                view_map = e.attrs["map"]
                parts.append(("view", e.dtype, units,
                              tuple((start == 0, tuple(d for d, _ in steps))
                                    for start, steps in view_map), index[id(e.inputs[0])]))
                sizes.append(("map", repr(view_map)))
            elif e.kind == "gather":     # its fixed indices are run-time sizes
                axes = e.attrs["axes"]
                rest = tuple(sorted((k, repr(v)) for k, v in e.attrs.items() if k != "axes"))
                parts.append(("gather", e.dtype, units, rest,
                              tuple((kind, v == 0) if kind == "i" else (kind, v)
                                    for kind, v in axes),
                              tuple(index[id(x)] for x in e.inputs)))
                sizes.append(("axes", repr(axes)))
            else:
                attrs = tuple(sorted((k, repr(v)) for k, v in e.attrs.items()))
                parts.append((e.kind, e.op, e.dtype, units, attrs,
                              tuple(index[id(x)] for x in e.inputs)))
            sizes.append(e.shape)
            order.append(e)
        else:
            stack.append(e)
            stack.extend(x for x in e.inputs if id(x) not in index)
    roots_at = tuple(index[id(e)] for _, e in roots)
    return (tuple(d == 1 for d in shape), tuple(parts), roots_at), tuple(sizes)
