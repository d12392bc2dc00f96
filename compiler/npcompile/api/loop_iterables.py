"""Loops over arrays, written as indexed loops: `for x in X`, `for i, x in enumerate(X)`
and `for a, b in zip(A, B)` iterate an array by its first axis, which is exactly `X[i]`
for i in range(len(X)) (an ndarray's iterator indexes it live, so writes into X during
the loop show either way). Written so, the loop is one that api/loop_rewrite.py compiles
once (the element a view per iteration, the index a loop value), where the iterator made
every iteration a new Python value and the loop was traced as written:

    __npc_sK_0 = X                                  # each iterable evaluated once, in order
    if __npc_loop__.indexable(__npc_sK_0):          # arrays of one or more dimensions
        for i in range(len(__npc_sK_0)):            # (zip: the shortest length)
            x = __npc_sK_0[i]
            BODY
    else:
        for i, x in enumerate(__npc_sK_0):          # the loop as written, on the same values
            BODY

Only where the loop has no else and its target is a name (a tuple of two names for
enumerate, of as many names as zip's arguments)."""
import ast
import copy


def as_indexed(loop, k, locals_):
    """[statements] standing for `loop`, or None where it is no such loop. `k` makes the
    temporaries' names unique; the names bound are added to `locals_`."""
    if loop.orelse or getattr(loop, "npc_iterated", False):
        return None
    it, target = loop.iter, loop.target
    index = None
    if _call_of(it, "enumerate") and len(it.args) == 1 and not it.keywords and \
            _names(target, 2):
        index, element = target.elts[0].id, [target.elts[1].id]
        seqs = [it.args[0]]
    elif _call_of(it, "zip") and it.args and not it.keywords and \
            not any(isinstance(a, ast.Starred) for a in it.args) and \
            _names(target, len(it.args)):
        element = [e.id for e in target.elts]
        seqs = list(it.args)
    elif isinstance(target, ast.Name) and isinstance(it, (ast.Name, ast.Attribute,
                                                          ast.Subscript)):
        element = [target.id]
        seqs = [it]
    else:
        return None
    temps = [f"__npc_s{k}_{j}" for j in range(len(seqs))]
    index = index or f"__npc_i{k}"
    locals_.update(temps + [index] + element)
    load = [ast.Name(t, ast.Load()) for t in temps]
    length = ast.Call(ast.Name("len", ast.Load()), [load[0]], []) if len(load) == 1 else \
        ast.Call(ast.Name("min", ast.Load()),
                 [ast.Call(ast.Name("len", ast.Load()), [x], []) for x in load], [])
    picks = [ast.Assign([ast.Name(e, ast.Store())],
                        ast.Subscript(copy.deepcopy(x), ast.Name(index, ast.Load()), ast.Load()))
             for e, x in zip(element, load)]
    indexed = ast.For(target=ast.Name(index, ast.Store()),
                      iter=ast.Call(ast.Name("range", ast.Load()), [length], []),
                      body=picks + copy.deepcopy(loop.body), orelse=[])
    indexed.npc_elements = len(picks)     # the statements that pick the elements
    # (the loop as it stands in the function: what its body reads is not read after it,
    # api/loop_rewrite._loaded_outside; `row` of `for row in X` is no output)
    indexed.npc_written = loop
    # the loop as written iterates the same values: a plain name as itself (its report
    # then names it), anything else through its temporary (evaluated once)
    again = [copy.deepcopy(q) if isinstance(q, ast.Name) else copy.deepcopy(x)
             for q, x in zip(seqs, load)]
    written = copy.copy(loop)
    written.iter = copy.copy(it)
    if isinstance(it, ast.Call):
        written.iter.args = again
    else:
        written.iter = again[0]
    written.npc_iterated = True
    test = ast.Call(ast.Attribute(ast.Name("__npc_loop__", ast.Load()), "indexable",
                                  ast.Load()), [copy.deepcopy(x) for x in load], [])
    out = [ast.Assign([ast.Name(t, ast.Store())], s) for t, s in zip(temps, seqs)]
    out.append(ast.If(test=test, body=[indexed], orelse=[written]))
    for s in out:
        # the new nodes at the loop's line (the body's statements keep their own)
        ast.fix_missing_locations(ast.copy_location(s, loop))
    return out


def _call_of(node, name):
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
        node.func.id == name


def _names(target, n):
    return isinstance(target, ast.Tuple) and len(target.elts) == n and \
        all(isinstance(e, ast.Name) for e in target.elts)
