"""Loops over the elements of 1-d arrays in a compiled loop nest (codegen/scalar_nest.py):
`for x in a:`, `for i, x in enumerate(a):` (a start too), `for x, y in zip(a, b):`, as
course code writes them (`for v in data: if v > t: count += 1`, `for ch in seq:`).

Python's iterator over an array reads element k when step k begins, so a write to a
later element inside the loop is seen, as here; zip stops at the shortest. The names
take the elements' types (a NumPy scalar, or where a string element lies). A row of
a 2-d float64 array is a view of it (its writes are the array's); other arrays of more
than one dimension are refused."""
import ast

from .scalar_nest_arrays import NewArray
from .scalar_nest_types import ARRAY, CT, F8, PYINT, Unsupported, is_str


def parts(s):
    """[(target name, array name or None for enumerate's count)], start expression or
    None: what `for ... in <iter>` binds, as the scan accepts it; None for range()."""
    it, tgt = s.iter, s.target
    if isinstance(it, ast.Name) and isinstance(tgt, ast.Name):
        return [(tgt.id, it.id)], None
    if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and not it.keywords
            and isinstance(tgt, ast.Tuple) and all(isinstance(e, ast.Name) for e in tgt.elts)):
        return None
    names = [e.id for e in tgt.elts]
    if it.func.id == "enumerate" and 1 <= len(it.args) <= 2 and len(names) == 2 and \
            isinstance(it.args[0], ast.Name):
        return [(names[0], None), (names[1], it.args[0].id)], \
            (it.args[1] if len(it.args) == 2 else None)
    if it.func.id == "zip" and len(it.args) == len(names) >= 1 and \
            all(isinstance(a, ast.Name) for a in it.args):
        return [(n, a.id) for n, a in zip(names, it.args)], None
    return None


class IterCode:
    """Mixed into scalar_nest.Nest."""

    def _iter_types(self, s):
        """Bind the names of an element loop to their types (a row of a 2-d float64 array:
        a view, `for xi, yi in zip(X, y)` of an online perceptron)."""
        bound, start = parts(s)
        if start is not None:
            self._want_int(start)
        for name, array in bound:
            if array is not None and self.types.get(array) is ARRAY and \
                    self.arrays[array][:2] == (F8, 2):
                self._row_view(name, array)
                continue
            self._bind(name, PYINT if array is None else self._element_type(array))

    def _row_view(self, name, array):
        """`for xi in X` of a 2-d float64 array the caller gave: xi a view of each row
        (scalar_nest_arrays.py's views), its writes X's."""
        if self.views_bound.get(name, (array, 1)) != (array, 1):
            raise Unsupported(f"{name} is bound to views of different arrays")
        if name in self.views_bound:
            return
        if array not in self.params or array in self.arrays_bound or array in self.copies or \
                name in self.params or name in self.locals or name in self.outputs:
            raise Unsupported(f"{name}, a row of {array}, holds another value or is read "
                              f"after the loop")
        self.views_bound[name] = (array, 1)
        self.types[name] = ARRAY
        self.arrays[name] = (F8, 1, self.arrays[array][2])
        raise NewArray(name)

    def _element_type(self, array):
        if self.types.get(array) is not ARRAY:
            raise Unsupported(f"a loop over {array}, which is not an array")
        dtype, ndim, _ = self.arrays[array]
        if ndim != 1:
            raise Unsupported(f"a loop over {array}, a {ndim}-d array (its rows are views)")
        return dtype

    def _iter_loop(self, s, depth):
        """The C loop over the elements, its body and the names it binds each step."""
        bound, start = parts(s)
        arrays = [a for _, a in bound if a is not None]
        k, n, first = self._new(), self._new(), self._new()
        count = f"n_{arrays[0]}_0"
        for a in arrays[1:]:
            count = f"({count} < n_{a}_0 ? {count} : n_{a}_0)"
        self._out(f"{{ const i64 {n} = {count}; const i64 {first} = "
                  f"{self._int_expr(start) if start is not None else '0'};", depth)
        self._out(f"for (i64 {k} = 0; {k} < {n}; ++{k}) {{", depth + 1)
        for name, array in bound:
            if name in self.views_bound:    # a row: the view's pointer, length and stride
                self._out(f"a_{name} = a_{array} + {k} * s_{array}_0; n_{name}_0 = "
                          f"n_{array}_1; s_{name}_0 = s_{array}_1;", depth + 2)
                continue
            if array is None:
                x = self._new()     # enumerate's count: a Python int, unbounded there
                val = (f"({{ i64 {x}; if (__builtin_add_overflow((i64)({first}), {k}, &{x})) "
                       f"goto npc_fail; {x}; }})")
            elif is_str(self.arrays[array][0]):
                val = f"(const char*)(a_{array} + {k} * s_{array}_0)"
            else:
                val = f"*({CT[self.arrays[array][0]]}*)(a_{array} + {k} * s_{array}_0)"
            self._out(f"v_{name} = {val};" + (f" set_{name} = true;" if name in self.outputs
                                               else ""), depth + 2)
        self._emit_stmts(s.body, depth + 2)
        self._out("}}", depth + 1)
