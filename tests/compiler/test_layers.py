"""The package's layers point one way. Every import between npcompile's modules, those
inside functions included (an import deferred to call time still ties the modules
together), is read from the source: no module reaches itself again through them, and
each folder imports only the layers below it."""
import ast
import os

import npcompile

ROOT = os.path.dirname(npcompile.__file__)
# what every layer may ask: which dtypes are traced, what each op is (ops.py), NumPy's
# own creation functions, the C++ trace core; the session's records and their report;
# the memo tables (memo.py, which imports nothing of ours); NumPy's mask selection made by
# the runtime (compaction.py)
BOTTOM = {"dtypes", "ops", "errors", "records", "report", "np_base", "trace_core", "memo",
          "profile_hook", "compaction", "cell_names"}
# what each layer may import, besides itself and the bottom modules
ALLOWED = {
    "bottom": set(),
    "graph": set(),
    "trace": {"graph"},
    "fusion": {"graph"},
    "codegen": {"graph", "fusion"},
    "backends": {"graph", "fusion", "codegen"},
    "exec": {"graph", "fusion", "codegen", "backends"},
    "api": {"graph", "trace", "fusion", "codegen", "backends", "exec"},
    "top": {"graph", "trace", "fusion", "codegen", "backends", "exec", "api"},
}


def modules():
    out = {}
    for folder, _, files in os.walk(ROOT):
        for f in files:
            if f.endswith(".py"):
                path = os.path.join(folder, f)
                name = os.path.relpath(path, ROOT)[:-3].replace(os.sep, ".")
                out[name[:-9] if name.endswith(".__init__") else name] = path
    return out


def layer(module):
    if "." not in module:
        return "bottom" if module in BOTTOM else "top"
    return module.split(".")[0]


def imports(mods):
    """module -> the npcompile modules it imports anywhere in its source."""
    edges = {}
    for name, path in mods.items():
        package = name.split(".") if path.endswith("__init__.py") else name.split(".")[:-1]
        found = set()
        for node in ast.walk(ast.parse(open(path).read())):
            targets = []
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package[:len(package) - node.level + 1]
                elif (node.module or "").startswith("npcompile"):
                    base = node.module.split(".")[1:]
                else:
                    continue
                if node.level and node.module:
                    base = base + node.module.split(".")
                for alias in node.names:
                    whole = ".".join(base + [alias.name])
                    targets.append(whole if whole in mods else ".".join(base))
            elif isinstance(node, ast.Import):
                targets = [".".join(a.name.split(".")[1:]) for a in node.names
                           if a.name.startswith("npcompile.")]
            found.update(t for t in targets if t in mods and t != name)
        edges[name] = found
    return edges


def test_each_layer_imports_only_the_layers_below():
    wrong = []
    for module, targets in imports(modules()).items():
        mine = layer(module)
        for t in targets:
            theirs = layer(t)
            if theirs not in (mine, "bottom") and theirs not in ALLOWED[mine]:
                wrong.append(f"{module} -> {t}")
    assert wrong == [], "imports against the layers: " + ", ".join(sorted(wrong))


def test_no_module_imports_itself_through_others():
    edges = imports(modules())
    state, stack, cycles = {}, [], []

    def visit(m):           # depth first; a grey module met again closes a cycle
        state[m] = "grey"
        stack.append(m)
        for t in sorted(edges[m]):
            if state.get(t) == "grey":
                cycles.append(stack[stack.index(t):] + [t])
            elif t not in state:
                visit(t)
        stack.pop()
        state[m] = "black"
    for m in sorted(edges):
        if m not in state:
            visit(m)
    assert cycles == [], "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)


def test_the_checker_sees_imports_inside_functions(tmp_path):
    """A deferred import (inside a function) counts like one at the top."""
    src = "def f():\n    from .tracer import current\n    return current\n"
    tree = ast.parse(src)
    found = [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    assert found and found[0].module == "tracer" and found[0].level == 1
