"""The C++ text of each primitive, by dtype: NumPy's semantics written out (integer
overflow wraps, NaN propagation of maximum vs fmax, floor division and modulo signs)."""
import numpy as np

from . import cpp_complex, cpp_half

CTYPE = {"b": {1: "bool"}, "i": {1: "i8", 2: "i16", 4: "i32", 8: "i64"},
         "u": {1: "u8", 2: "u16", 4: "u32", 8: "u64"}, "f": {2: "npc_f16", 4: "float", 8: "double"},
         "c": cpp_complex.CTYPE}

PRELUDE = """\
typedef signed char i8; typedef short i16; typedef int i32; typedef long long i64;
typedef unsigned char u8; typedef unsigned short u16; typedef unsigned int u32;
typedef unsigned long long u64;
""" + cpp_half.TYPE


def ctype(dtype):
    dt = np.dtype(dtype)
    return CTYPE[dt.kind][dt.itemsize]


def utype(dtype):
    return CTYPE["u"][np.dtype(dtype).itemsize]


def linear_index(vars_, sizes):
    """The C-order position of index vars_ in an array of these sizes, as C++."""
    expr = vars_[0]
    for v, n in zip(vars_[1:], sizes[1:]):
        expr = f"({expr})*{n} + {v}"
    return expr


def literal(value, dtype):
    dt = np.dtype(dtype)
    v = np.asarray(value).astype(dt)[()]
    if dt.kind == "b":
        return "true" if v else "false"
    if dt.kind == "c":
        part = np.dtype(np.float32 if dt.itemsize == 8 else np.float64)
        return f"{ctype(dt)}({literal(v.real, part)}, {literal(v.imag, part)})"
    if dt.kind == "f":
        f = float(v)
        if f != f:
            return "__builtin_nan(\"\")" if dt.itemsize == 8 else "__builtin_nanf(\"\")"
        if f in (float("inf"), float("-inf")):
            s = "__builtin_inf()" if dt.itemsize == 8 else "__builtin_inff()"
            return s if f > 0 else "(-" + s + ")"
        h = f.hex()
        return h + ("f" if dt.itemsize == 4 else "")
    if dt.kind == "u":
        return f"(({ctype(dt)}){int(v)}ULL)"
    iv = int(v)
    if iv == -2 ** 63:
        return "((i64)(-9223372036854775807LL - 1))"
    return f"(({ctype(dt)}){iv}LL)"


# libm functions per float width
MATH = {"sqrt": "sqrt", "exp": "exp", "log": "log", "sin": "sin", "cos": "cos", "tan": "tan",
        "tanh": "tanh", "arcsin": "asin", "arccos": "acos", "arctan": "atan", "sinh": "sinh",
        "cosh": "cosh", "exp2": "exp2", "expm1": "expm1", "log1p": "log1p", "log2": "log2",
        "log10": "log10", "cbrt": "cbrt", "floor": "floor", "ceil": "ceil", "trunc": "trunc",
        "rint": "rint", "fabs": "fabs", "arctan2": "atan2", "hypot": "hypot",
        "copysign": "copysign", "fmod": "fmod", "power": "pow"}
BINARY_MATH = {"atan2", "hypot", "copysign", "fmod", "pow"}

HELPERS = {
    # NumPy's pairwise float sum of terms s .. s + n - 1 of a run, in NumPy's order (the
    # facts: codegen/numpy_sum_order.py). Term q is f(q / m, q % m) where the run has
    # several axes (ROWS; m the last one's size): a block finds its place once and moves
    # on along the row, no division per term. Of one axis it is f(0, q). 8 terms in one
    # row are neighbours: their partial sums vectorize without reordering. The halving
    # is a call per 64..128 terms.
    "pairwise": """\
template <bool ROWS, class F> static {T} npc_pairwise_split_{T}(const F& f, i64 s, i64 n, i64 m);
template <bool ROWS, class F>
static inline {T} npc_pairwise_{T}(const F& f, i64 s, i64 n, i64 m) {{
  if (n > 128) return npc_pairwise_split_{T}<ROWS>(f, s, n, m);
  i64 o = ROWS ? s / m : 0, c = ROWS ? s - o * m : s;
  auto next = [&]() {{
    const {T} v = f(o, c);
    if (++c == m && ROWS) {{ c = 0; ++o; }}
    return v;
  }};
  if (n < 8) {{
    {T} acc = 0;
    for (i64 i = 0; i < n; ++i) acc += next();
    return acc;
  }}
  {T} p[8];
  for (int j = 0; j < 8; ++j) p[j] = next();
  const i64 whole = n - n % 8;
  i64 i = 8;
  for (; i < whole; i += 8) {{
    if (!ROWS || c + 8 <= m) {{
      for (int j = 0; j < 8; ++j) p[j] += f(o, c + j);
      if ((c += 8) == m && ROWS) {{ c = 0; ++o; }}
    }} else {{
      for (int j = 0; j < 8; ++j) p[j] += next();
    }}
  }}
  {T} acc = ((p[0] + p[1]) + (p[2] + p[3])) + ((p[4] + p[5]) + (p[6] + p[7]));
  for (; i < n; ++i) acc += next();
  return acc;
}}
template <bool ROWS, class F> static {T} npc_pairwise_split_{T}(const F& f, i64 s, i64 n, i64 m) {{
  const i64 half = n / 2 - (n / 2) % 8;
  return npc_pairwise_{T}<ROWS>(f, s, half, m) + npc_pairwise_{T}<ROWS>(f, s + half, n - half, m);
}}
""",
    # The same for complex terms ({T}, parts {U}), as NumPy sums them: a run of n terms is
    # 2n numbers, so blocks hold 4 terms (8 numbers), 64 terms at most, halves are cut at
    # a multiple of 4 terms, and each part has its own 4 partial sums.
    "cpairwise": """\
template <bool ROWS, class F>
static void npc_cpairwise_split_{T}(const F& f, i64 s, i64 n, i64 m, {U}& re, {U}& im);
template <bool ROWS, class F>
static inline void npc_cpairwise_{T}(const F& f, i64 s, i64 n, i64 m, {U}& re, {U}& im) {{
  if (n > 64) return npc_cpairwise_split_{T}<ROWS>(f, s, n, m, re, im);
  i64 o = ROWS ? s / m : 0, c = ROWS ? s - o * m : s;
  auto next = [&]() {{
    const {T} v = f(o, c);
    if (++c == m && ROWS) {{ c = 0; ++o; }}
    return v;
  }};
  re = 0; im = 0;
  if (n < 4) {{
    for (i64 i = 0; i < n; ++i) {{ const {T} v = next(); re += v.re; im += v.im; }}
    return;
  }}
  {U} pr[4], pi[4];
  for (int j = 0; j < 4; ++j) {{ const {T} v = next(); pr[j] = v.re; pi[j] = v.im; }}
  const i64 whole = n - n % 4;
  i64 i = 4;
  for (; i < whole; i += 4) {{
    if (!ROWS || c + 4 <= m) {{
      for (int j = 0; j < 4; ++j) {{ const {T} v = f(o, c + j); pr[j] += v.re; pi[j] += v.im; }}
      if ((c += 4) == m && ROWS) {{ c = 0; ++o; }}
    }} else {{
      for (int j = 0; j < 4; ++j) {{ const {T} v = next(); pr[j] += v.re; pi[j] += v.im; }}
    }}
  }}
  re = (pr[0] + pr[1]) + (pr[2] + pr[3]);
  im = (pi[0] + pi[1]) + (pi[2] + pi[3]);
  for (; i < n; ++i) {{ const {T} v = next(); re += v.re; im += v.im; }}
}}
template <bool ROWS, class F>
static void npc_cpairwise_split_{T}(const F& f, i64 s, i64 n, i64 m, {U}& re, {U}& im) {{
  const i64 half = (n - n % 8) / 2;
  {U} re2, im2;
  npc_cpairwise_{T}<ROWS>(f, s, half, m, re, im);
  npc_cpairwise_{T}<ROWS>(f, s + half, n - half, m, re2, im2);
  re += re2; im += im2;
}}
""",
    # a concatenation's computed piece is evaluated at every element (see Emitter._concat):
    # its index is kept inside the piece, and the value discarded outside it
    "clamp": """\
static inline {T} npc_clamp_{T}({T} i, {T} last) {{ return i < 0 ? 0 : (i > last ? last : i); }}
""",
    # NumPy's integer power: squaring in the type, wrapping (here in unsigned, where C
    # defines it); a negative exponent raises in NumPy: npc_bad makes the graph rerun there
    "ipow": """\
static inline {T} npc_ipow_{T}({T} a, {T} b, bool& bad) {{
  if (b < 0) {{ bad = true; return 0; }}
  {U} base = ({U})a, out = 1, e = ({U})b;
  while (e) {{ if (e & 1) out = ({U})(out * base); base = ({U})(base * base); e >>= 1; }}
  return ({T})out;
}}
""",
    "fdivmod": """\
static inline {T} npc_floordiv_{T}({T} a, {T} b) {{
  {T} mod = {fmod}(a, b);
  if (!b) return a / b;
  {T} div = (a - mod) / b;
  if (mod) {{ if ((b < 0) != (mod < 0)) {{ mod += b; div -= 1; }} }}
  if (div) {{ {T} fl = {floor}(div); if (div - fl > 0.5) fl += 1; return fl; }}
  return {copysign}(({T})0, a / b);
}}
static inline {T} npc_mod_{T}({T} a, {T} b) {{
  {T} mod = {fmod}(a, b);
  if (!b) return mod;
  if (mod) {{ if ((b < 0) != (mod < 0)) mod += b; }}
  else mod = {copysign}(({T})0, b);
  return mod;
}}
""",
}


def _zero_divisor(T, need, nonzero):
    """What an integer division gives where its divisor is 0: a 0 that flags npc_bad,
    but where the divisor is a constant other than 0 (nonzero)."""
    if nonzero:
        return f"(({T})0)"
    need.add(("flag",))
    return f"(npc_bad = true, ({T})0)"


def math_name(fn, dtype):
    return fn + ("f" if np.dtype(dtype).itemsize == 4 else "")


def render(op, args, in_dt, out_dt, need, nonzero=False):
    """C++ expression for `op` on argument expressions (already in the loop dtype).
    `need` collects the libm functions and helpers the kernel must declare. nonzero: the
    second argument is a constant other than 0 (a symbolic kernel reads it from P[])."""
    k = np.dtype(in_dt).kind
    if k == "c":
        return cpp_complex.render(op, args, in_dt, out_dt, need)
    T = ctype(in_dt)
    a = args[0]
    b = args[1] if len(args) > 1 else None
    U = utype(in_dt) if k in "iu" else None

    def wrap(expr):  # signed arithmetic in unsigned: NumPy wraps, C would be undefined
        return f"(({T})(({U}){expr}))"

    if op == "add":
        return f"({a} || {b})" if k == "b" else (wrap(f"(({U}){a} + ({U}){b})") if k == "i" else f"(({T})({a} + {b}))")
    if op == "subtract":
        return wrap(f"(({U}){a} - ({U}){b})") if k == "i" else f"(({T})({a} - {b}))"
    if op == "multiply":
        return f"({a} && {b})" if k == "b" else (wrap(f"(({U}){a} * ({U}){b})") if k == "i" else f"(({T})({a} * {b}))")
    if op == "square":
        return wrap(f"(({U}){a} * ({U}){a})") if k == "i" else f"(({T})({a} * {a}))"
    if op == "true_divide":
        return f"({a} / {b})"
    if op == "reciprocal":
        return f"(({T})1 / {a})"
    if op == "negative":
        return wrap(f"(({U})0 - ({U}){a})") if k == "i" else f"(({T})(-{a}))"
    if op in ("positive", "conjugate"):
        return f"({a})"
    if op == "absolute":
        if k == "f":
            need.add(("math", math_name("fabs", in_dt), 1, T))
            return f"{math_name('fabs', in_dt)}({a})"
        if k == "i":
            return f"(({a}) < 0 ? {wrap(f'(({U})0 - ({U}){a})')} : ({a}))"
        return f"({a})"
    if op == "sign":
        if k == "f":
            return f"(({a}) > 0 ? ({T})1 : (({a}) < 0 ? ({T})-1 : ({a})))"
        return f"(({T})((({a}) > 0) - (({a}) < 0)))"
    if op in ("maximum", "minimum", "fmax", "fmin"):
        cmp = ">=" if op in ("maximum", "fmax") else "<="
        if k == "f":
            # NumPy's loops give the second operand on a tie: np.maximum(-0.0, 0.0) is
            # 0.0, and np.maximum.accumulate([0.0, -0.0]) ends in -0.0
            cmp = cmp[0]
            nan = f"({a}) != ({a})" if op in ("maximum", "minimum") else f"({b}) != ({b})"
            return f"((({a}) {cmp} ({b}) || {nan}) ? ({a}) : ({b}))"
        return f"((({a}) {cmp} ({b})) ? ({a}) : ({b}))"
    cmps = {"less": "<", "less_equal": "<=", "greater": ">", "greater_equal": ">=",
            "equal": "==", "not_equal": "!="}
    if op in cmps:
        return f"(({a}) {cmps[op]} ({b}))"
    if op == "logical_and":
        return f"(({a}) != 0 && ({b}) != 0)"
    if op == "logical_or":
        return f"(({a}) != 0 || ({b}) != 0)"
    if op == "logical_xor":
        return f"((({a}) != 0) != (({b}) != 0))"
    if op == "logical_not":
        return f"(!({a}))"
    if op in ("bitwise_and", "bitwise_or", "bitwise_xor"):
        sym = {"bitwise_and": "&", "bitwise_or": "|", "bitwise_xor": "^"}[op]
        return f"(({T})(({a}) {sym} ({b})))"
    if op == "invert":
        return f"(!({a}))" if k == "b" else f"(({T})(~({a})))"
    if op == "isnan":
        return f"(({a}) != ({a}))" if k == "f" else "false"
    if op == "isinf":
        return f"(({a}) == __builtin_inf() || ({a}) == -__builtin_inf())" if k == "f" else "false"
    if op == "isfinite":
        return f"(({a}) - ({a}) == 0)" if k == "f" else "true"
    if op == "signbit":
        return f"__builtin_signbit({a})" if k == "f" else (f"(({a}) < 0)" if k == "i" else "false")
    if op in ("floor_divide", "remainder"):
        if k == "f":
            need.add(("math", math_name("fmod", in_dt), 2, T))
            need.add(("math", math_name("floor", in_dt), 1, T))
            need.add(("math", math_name("copysign", in_dt), 2, T))
            need.add(("helper", "fdivmod", T))
            return f"npc_{'floordiv' if op == 'floor_divide' else 'mod'}_{T}({a}, {b})"
        # a zero divisor: NumPy's 0 with its divide-by-zero warning (or error, under
        # np.errstate), which only NumPy gives: npc_bad makes the graph rerun there
        # (not for a constant divisor other than 0, `i % 3`: a GPU pays a wait to read
        # the flag)
        zero = _zero_divisor(T, need, nonzero)
        if k == "u":
            return f"(({b}) == 0 ? {zero} : ({T})(({a}) {'/' if op == 'floor_divide' else '%'} ({b})))"
        if op == "floor_divide":
            return (f"(({b}) == 0 ? {zero} : (({b}) == -1 ? {wrap(f'(({U})0 - ({U}){a})')} : "
                    f"({T})(({a}) / ({b}) - ((({a}) % ({b}) != 0) && ((({a}) < 0) != (({b}) < 0))))))")
        return (f"(({b}) == 0 ? {zero} : ({b}) == -1 ? ({T})0 : ({T})(((({a}) % ({b})) != 0 && "
                f"(((({a}) % ({b})) < 0) != (({b}) < 0))) ? (({a}) % ({b})) + ({b}) : (({a}) % ({b}))))")
    if op == "fmod" and k in "iu":
        zero = _zero_divisor(T, need, nonzero)
        if k == "u":    # (b == -1 holds for an unsigned b at its maximum: 29 fmod 2**64-1 is 29)
            return f"(({b}) == 0 ? {zero} : ({T})(({a}) % ({b})))"
        return f"(({b}) == 0 ? {zero} : ({b}) == -1 ? ({T})0 : ({T})(({a}) % ({b})))"
    if op == "power" and k in "iu":
        need.add(("helper", "ipow", T, U))
        need.add(("flag",))
        return f"npc_ipow_{T}({a}, {b}, npc_bad)"
    if op in MATH and k == "f":
        fn = math_name(MATH[op], in_dt)
        arity = 2 if MATH[op] in BINARY_MATH else 1
        need.add(("math", fn, arity, T))
        return f"{fn}({', '.join(args[:arity])})"
    raise KeyError(f"no C++ rendering of {op} for {np.dtype(in_dt)}")


def declarations(need):
    out = [cpp_complex.TYPES] if ("complex",) in need else []
    for item in sorted(need, key=str):
        if item[0] == "math":
            _, fn, arity, T = item
            params = ", ".join([T] * arity)
            out.append(f'extern "C" {T} {fn}({params});')
    for item in sorted(need, key=str):
        if item[0] == "helper":
            name, T = item[1], item[2]
            U = item[3] if len(item) > 3 else None
            if name in cpp_half.HELPERS:
                out.append(cpp_half.helper(name))
                continue
            if name in cpp_complex.HELPERS:
                out.append(cpp_complex.helper(name, T, U))
                continue
            suffix = "f" if T == "float" else ""
            out.append(HELPERS[name].format(T=T, U=U, fmod="fmod" + suffix, floor="floor" + suffix,
                                            copysign="copysign" + suffix))
    return "\n".join(out)


def kahan_add(ctype_, acc, term, comp):
    """C of `acc += term` with Kahan's compensation `comp`. Once the sum is not finite
    (an inf term, or an overflow) the compensation is 0: (t - acc) - y would be
    inf - inf, a NaN where NumPy's sum is inf (t - t == 0 holds only for finite t; no
    fast-math here, on either target, that would fold it)."""
    return (f"{{ const {ctype_} y = {term} - {comp}; const {ctype_} t = {acc} + y; "
            f"{comp} = (t - t == 0) ? (t - {acc}) - y : ({ctype_})0; {acc} = t; }}")


def pairwise_text(terms):
    """C++ adding terms neighbour with neighbour, level by level: ((t0 + t1) + (t2 + t3))."""
    while len(terms) > 1:
        terms = [f"({terms[i]} + {terms[i + 1]})" if i + 1 < len(terms) else terms[i]
                 for i in range(0, len(terms), 2)]
    return terms[0]
