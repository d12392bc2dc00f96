"""A `for` loop whose body holds `if` statements among straight-line code (a particle
filter's `if neff < n / 2: resample`, a pivot's `if p != k: swap`, a time loop's `if
step % 100 == 0: keep a snapshot`). Traced as written, every iteration's test on data
was a graph break and every statement was traced again: slower than NumPy, and a first
call growing with the loop. Split instead (api/loop_rewrite._Rewriter._split):

* each run of straight-line statements between the `if`s is a segment, a body function
  compiled once and replayed at every iteration (api/loop_runner.py: splits);
* each TEST runs in Python on the values the segments made (it may read the loop
  variable), and the branch it picks runs as plain Python on concrete arrays: a branch
  runs at some iterations only, where tracing it would cost more than NumPy does.

The runner keeps the loop's values by name; every iteration runs the segments, tests
and branches in the user's order, so what each does happens as often, and in the same
order, as in the loop as written."""


class Segment:
    """Straight-line statements: a function of the names they read, returning the names
    they bind (in `binds` order)."""

    kind = "segment"

    def __init__(self, name, params, binds):
        self.name = name
        self.params = params
        self.binds = binds
        # per parameter position, the position among `binds` of its next value (what a
        # C++ loop of this segment feeds back)
        self.next_of = {j: binds.index(p) for j, p in enumerate(params) if p in binds}
        self.fn = None


class Branch:
    """`if TEST:` with its branches: TEST a function of the names it reads; each branch a
    function of the names it reads, returning its locals (what it bound, which may
    depend on the path it took through its own statements)."""

    kind = "branch"

    def __init__(self, test, test_reads, then, then_reads, orelse, orelse_reads, writes):
        self.names = (test, then, orelse)
        self.test_reads = test_reads
        self.then_reads = then_reads
        self.orelse_reads = orelse_reads
        # per branch, the names it binds and the arrays it writes into: what it may
        # change (its locals() also hold the names it only read)
        self.then_writes, self.orelse_writes = writes
        self.test = self.then = self.orelse = None


class SplitSite:
    """One rewritten `for NAME in ITER:` of segments and branches."""

    def __init__(self, index, lineno, text, var, params, items, binds, maybe):
        self.index = index
        self.lineno = lineno
        self.text = text
        self.var = var
        self.params = params    # names read before anything in the loop binds them
        self.items = items      # Segment and Branch, in the user's order
        self.binds = binds      # names the loop binds that are read after it
        self.maybe = maybe      # those of them only some paths bind: bound before it too
        self.carry = []         # (what the runners' shared helpers look for)
        self.sinks = None

    def attach(self, funcs):
        for item in self.items:
            if item.kind == "segment":
                item.fn = funcs[item.name]
            else:
                test, then, orelse = item.names
                item.test = funcs[test]
                item.then = funcs[then]
                item.orelse = funcs[orelse] if orelse else None
