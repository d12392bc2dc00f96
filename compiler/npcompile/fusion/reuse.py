"""Which in-place updates may write straight into their base's memory.

The trace records `x[k] = v` and `x += y` as new versions of x's storage (graph/calls.py
update: copy the base, write the copy), so that every version keeps its value. In a
loop that is a copy of the whole array per assignment: a 200x200 Cholesky copied its
matrix 400 times per call. The copy is needed only while someone can still see the
old version. This pass finds the updates where no one can, and the program then writes
into the base itself (calls.update_reusing).

An update of base p at step s may reuse p's memory when every value that may share
that memory (p, its views, its earlier versions: values made from one another by
NumPy steps) was created before s and is read at s at the latest, none of them is a
graph output, and none is a leaf (the caller's arrays are written back at the end,
never mid-graph). Kernels always write fresh arrays, so their outputs share with
nothing; a NumPy step may return a view of any input, so its output shares with all of
them (conservative). Sharing is tracked with union-find, in step order, so the pass is
linear in the graph."""
import math

import operator

from ..graph import calls
from ..ops import VIEW_LABELS
from .partition import _loads

# NumPy steps that cannot fail at run time on the layouts the graph was made for
_SAFE_LABELS = VIEW_LABELS


def may_fail(step):
    """Can this step raise at run time (so that the graph reruns from its leaves)?
    Kernels flag out-of-range float->int casts and negative integer powers."""
    if step[0] == "numpy":
        n = step[1]
        # a gather raises NumPy's IndexError for an index out of range: it may fail
        return not (n.label in _SAFE_LABELS or (n.fn is operator.getitem and n.label != "gather") or
                    (n.fn is calls.update and n.args[3] is None))
    seen, stack = set(), [e for _, e in step[1]]
    while stack:
        e = stack.pop()
        if id(e) in seen:
            continue
        seen.add(id(e))
        if e.kind == "cast" and e.inputs and e.inputs[0].dtype.kind in "fc" and \
                e.dtype.kind in "iub":
            return True
        if e.kind == "pw" and e.op == "power" and e.dtype.kind in "iu":
            return True
        if e.kind == "gather":      # an index out of range
            return True
        stack.extend(e.inputs)
    return False


def reusable_updates(plan, pos, outputs_pos, n_leaves):
    """Positions (graph order) of the update nodes that may write into their base."""
    reads = []          # per step: the positions it reads
    made = []           # per step: the positions it creates
    for step in plan.steps:
        if step[0] == "numpy":
            n = step[1]
            reads.append([pos[id(i)] for i in n.inputs])
            made.append([pos[id(n)]])
        else:
            loaded = set()
            for _, e in step[1]:
                _loads(e, loaded)
            reads.append([pos[id(x)] for x in loaded if id(x) in pos])
            made.append([pos[id(node)] for node, _ in step[1]])
    last_read = {}
    for s, rs in enumerate(reads):
        for p in rs:
            last_read[p] = s
    for p in outputs_pos:
        last_read[p] = math.inf

    fails_after = [False] * len(plan.steps)   # some later step may raise
    for s in range(len(plan.steps) - 2, -1, -1):
        fails_after[s] = fails_after[s + 1] or may_fail(plan.steps[s + 1])

    parent = {}
    stats = {}          # class root -> [latest read, has a graph output, has a leaf]

    def find(p):
        root = p
        while parent.get(root, root) != root:
            root = parent[root]
        while parent.get(p, p) != root:   # path compression
            parent[p], p = root, parent[p]
        return root

    def add(p, leaf):
        parent[p] = p
        stats[p] = [last_read.get(p, -1), last_read.get(p) == math.inf, leaf]

    def union(a, b):
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[rb] = ra
            sa, sb = stats[ra], stats.pop(rb)
            sa[0] = max(sa[0], sb[0])
            sa[1] = sa[1] or sb[1]
            sa[2] = sa[2] or sb[2]

    for p in range(n_leaves):
        add(p, True)
    reusable = set()
    for s, step in enumerate(plan.steps):
        if step[0] == "numpy":
            n = step[1]
            q = pos[id(n)]
            ins = reads[s]
            if n.fn is calls.update and ins:
                base = find(ins[0])
                latest, output, leaf = stats[base]
                add(q, False)
                if not output and latest <= s and not (leaf and fails_after[s]):
                    reusable.add(q)
                    union(ins[0], q)  # written in place: q is the base's memory
                # else q is a fresh copy: it shares with nothing (the first write to a
                # leaf copies it once; the versions after it are the program's own)
            else:
                add(q, False)
                for i in ins:         # a NumPy step may return a view of any input
                    if i not in parent:
                        add(i, i < n_leaves)
                    union(i, q)
        else:
            for q in made[s]:
                add(q, False)         # a kernel's output is a fresh array
    return reusable
