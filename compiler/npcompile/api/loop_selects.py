"""`if` statements of a loop body made selects, so that the body is straight-line and
compiles once (api/loop_rewrite.py): the adaptive time step's

    dt = cfl * dx / np.max(np.abs(u))
    if t + dt > t_end:
        dt = t_end - t

becomes

    __npc_if_0 = t + dt > t_end
    dt = __npc_loop__.choose(__npc_if_0, t_end - t, dt)

Traced, the test is a 0-d bool of the graph, and bool() of it was a graph break at
every iteration (a CFL-limited Burgers solver ran as plain NumPy, past the break
budget). loop_picks.choose keeps the select in the graph where its result's type is
known without the test's value, and is `a if test else b` otherwise, so the program is
the user's:
* the test is evaluated once, where the `if` stood;
* each name a branch assigns keeps its old value where that branch is not taken, and a
  later statement of a branch sees the earlier ones' new values where it is;
* what a branch assigns is computed whether or not the branch is taken, so only
  expressions that can neither raise nor warn on numbers are taken: names, numeric
  constants, +, - and *, unary minus, comparisons, abs/min/max of those. A division
  (ZeroDivisionError on Python floats), a call, a subscript (IndexError) keeps the
  `if` as written.

Only `if` statements whose branches are plain `NAME = EXPR` assignments qualify; an
`if` holding a break, a store into an array, or anything else keeps the body as it was
(api/loop_split.py and api/loop_rewrite.py's exit loops take those)."""
import ast
import copy

_OPS = (ast.Add, ast.Sub, ast.Mult)
_UNARY = (ast.USub, ast.UAdd)
_CALLS = ("abs", "min", "max")


def converted(body, globals_, locals_, var=None):
    """The body with each top-level `if` made selects, or None where one cannot be (or
    there is none). `globals_`/`locals_`: a name of the user's that shadows abs/min/max
    is a call that may do anything. `var`: the loop variable.

    Only tests of values the body computes qualify (`if loss < best`): a test of the
    loop variable or of values from outside the loop (`if i % 100 == 0`, `if flag`) is
    a Python number, tested at no cost, and made a select its branch would be computed
    at every iteration (api/loop_split.py runs it only where taken)."""
    if not any(isinstance(s, ast.If) for s in body):
        return None
    out, bound = [], set()
    for k, s in enumerate(body):
        if not isinstance(s, ast.If):
            out.append(s)
            bound.update(n.id for n in ast.walk(s)
                         if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
            continue
        reads = {n.id for n in ast.walk(s.test) if isinstance(n, ast.Name)}
        if var in reads or not reads & bound:
            return None
        made = _selects(s, k, set(globals_) | set(locals_))
        if made is None:
            return None
        out.extend(made)
        bound.update(st.targets[0].id for st in s.body + s.orelse)
    return out


def _selects(node, k, shadowing):
    branches = (node.body, node.orelse)
    for stmts in branches:
        for st in stmts:
            if not (isinstance(st, ast.Assign) and len(st.targets) == 1 and
                    isinstance(st.targets[0], ast.Name) and _safe(st.value, shadowing)):
                return None
    test = f"__npc_if_{node.lineno}_{node.col_offset}_{k}"
    out = [ast.Assign(targets=[ast.Name(test, ast.Store())], value=copy.deepcopy(node.test),
                      type_comment=None)]
    for taken, stmts in enumerate(branches):
        for st in stmts:
            name = st.targets[0].id
            new, old = copy.deepcopy(st.value), ast.Name(name, ast.Load())
            pair = [new, old] if taken == 0 else [old, new]
            call = ast.Call(ast.Attribute(ast.Name("__npc_loop__", ast.Load()), "choose",
                                          ast.Load()), [ast.Name(test, ast.Load())] + pair, [])
            out.append(ast.Assign(targets=[ast.Name(name, ast.Store())], value=call,
                                  type_comment=None))
    # all on the `if`'s line: where a select is `a if test else b` on a traced test, the
    # graph break it makes is the `if`'s, and the report points there, not at a branch
    for s in out:
        for n in ast.walk(s):
            if isinstance(n, (ast.stmt, ast.expr)):   # (new nodes have no lineno yet)
                n.lineno = n.end_lineno = node.lineno
                n.col_offset = n.end_col_offset = node.col_offset
    return out


def _safe(e, shadowing):
    """Can `e` be computed where its branch is not taken without raising or warning?"""
    if isinstance(e, ast.Name):
        return True
    if isinstance(e, ast.Constant):
        return type(e.value) in (int, float, bool)
    if isinstance(e, ast.BinOp):
        return isinstance(e.op, _OPS) and _safe(e.left, shadowing) and _safe(e.right, shadowing)
    if isinstance(e, ast.UnaryOp):
        return isinstance(e.op, _UNARY) and _safe(e.operand, shadowing)
    if isinstance(e, ast.Compare):
        return _safe(e.left, shadowing) and all(_safe(c, shadowing) for c in e.comparators) \
            and not any(isinstance(op, (ast.In, ast.NotIn, ast.Is, ast.IsNot)) for op in e.ops)
    if isinstance(e, ast.Call):
        return isinstance(e.func, ast.Name) and e.func.id in _CALLS and \
            e.func.id not in shadowing and not e.keywords and 1 <= len(e.args) <= 2 and \
            all(_safe(a, shadowing) for a in e.args)
    return False
