"""Row swaps inside a compiled loop nest (codegen/scalar_nest.py), as pivoting writes them:
`A[[k, p]] = A[[p, k]]`, `A[[k, p], :] = A[[p, k], :]`, `perm[[k, p]] = perm[[p, k]]`.

NumPy reads the right side first (a copy of rows p and k), then stores it: rows k and p
trade places, and where k == p nothing changes. Here the two rows' elements are
exchanged in place, for an array of any numeric dtype and any number of dimensions.
Negative indices count from the end; one out of bounds stops the nest, and the Python
loop raises NumPy's IndexError."""
import ast

from .scalar_nest_types import ARRAY, CT, Unsupported

_FAIL = "goto npc_fail"


def _parts(sub):
    """(array name, [first index, second index]) of `X[[a, b]]` or `X[[a, b], :, ...]`,
    else None."""
    if not (isinstance(sub, ast.Subscript) and isinstance(sub.value, ast.Name)):
        return None
    idx = sub.slice.elts if isinstance(sub.slice, ast.Tuple) else [sub.slice]
    if not isinstance(idx[0], ast.List) or len(idx[0].elts) != 2 or \
            any(isinstance(x, ast.Starred) for x in idx[0].elts):
        return None
    if not all(isinstance(x, ast.Slice) and x.lower is None and x.upper is None and
               x.step is None for x in idx[1:]):
        return None
    return sub.value.id, idx[0].elts, len(idx) - 1


def is_swap(s):
    """Is the statement `X[[a, b]] = X[[b, a]]` (rows a and b exchanged)?"""
    if not (isinstance(s, ast.Assign) and len(s.targets) == 1):
        return False
    got, want = _parts(s.targets[0]), _parts(s.value)
    if got is None or want is None or got[0] != want[0] or got[2] != want[2]:
        return False
    (a, b), (c, d) = got[1], want[1]
    return ast.dump(a) == ast.dump(d) and ast.dump(b) == ast.dump(c)


class SwapCode:
    """Mixed into scalar_nest.Nest."""

    def _swap_type(self, s):
        name, (a, b), _ = _parts(s.targets[0])
        if self.types.get(name) is not ARRAY:
            raise Unsupported(f"{name}[[...]] where {name} is not an array")
        dtype, ndim, writable = self.arrays[name]
        if dtype.kind not in "biuf" or not writable:
            raise Unsupported(f"rows of {name}, a {dtype} array, swapped")
        self._want_int(a)
        self._want_int(b)

    def _swap(self, s, depth):
        name, (a, b), _ = _parts(s.targets[0])
        dtype, ndim, _ = self.arrays[name]
        T = CT[dtype]
        saved, self.lines = self.lines, []
        ia, ib, t = self._new(), self._new(), self._new()
        # (both indices before either row moves, as NumPy reads the right side first)
        self._out(f"const i64 {ia} = {self._index(a, f'n_{name}_0')};")
        self._out(f"const i64 {ib} = {self._index(b, f'n_{name}_0')};")
        ks = [self._new() for _ in range(ndim - 1)]
        loops = " ".join(f"for (i64 {k} = 0; {k} < n_{name}_{d + 1}; ++{k})"
                         for d, k in enumerate(ks))
        rest = "".join(f" + {k} * s_{name}_{d + 1}" for d, k in enumerate(ks))
        pa, pb = self._new(), self._new()
        self._out(f"if ({ia} != {ib}) {loops} {{ {T}* {pa} = ({T}*)(a_{name} + {ia} * "
                  f"s_{name}_0{rest}); {T}* {pb} = ({T}*)(a_{name} + {ib} * s_{name}_0{rest}); "
                  f"const {T} {t} = *{pa}; *{pa} = *{pb}; *{pb} = {t}; }}")
        body, self.lines = self.lines, saved
        self._block(body, depth)
