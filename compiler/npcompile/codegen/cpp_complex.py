"""The C++ text of complex64 and complex128 values and the ops on them, as NumPy computes
them (its loops in numpy/core/src/umath: products written out, Smith's division with
NumPy's division by zero, its SIMD loop's abs, the C library's cexp, clog, csqrt, ...
for the functions).

A complex number is a struct of two floats (npc_c64, npc_c128) laid out as NumPy's
memory is (real, imaginary): a kernel reads and writes complex arrays in place, and the
loop vectorizer sees through the struct (stride-2 interleaved loads and stores) where
std::complex (no headers here) or _Complex (Annex G multiply and divide, not NumPy's)
would not do. The C library's functions take _Complex, converted at the call only."""
import numpy as np

from ..dtypes import NUMPY2

# the C++ struct of each complex width, and the float type of its parts
CTYPE = {8: "npc_c64", 16: "npc_c128"}
PART = {"npc_c64": "float", "npc_c128": "double"}

# Copies part by part: a trivially copyable struct is copied with memcpy (a load into a
# local, a where's select of two values, a store), which the vectorizer does not take
# (the Mandelbrot step's loop stayed scalar); these copies are plain loads and stores.
TYPES = "".join(f"""\
struct {T} {{ {F} re, im; {T}() = default;
  constexpr {T}({F} r, {F} i = 0) : re(r), im(i) {{}}
  constexpr {T}(const {T}& z) : re(z.re), im(z.im) {{}}
  constexpr {T}& operator=(const {T}& z) {{ re = z.re; im = z.im; return *this; }} }};
""" for T, F in (("npc_c64", "float"), ("npc_c128", "double")))

# the C library's function of each ufunc NumPy calls it for (npy_cexp -> cexp, ...)
LIBC = {"sqrt": "csqrt", "exp": "cexp", "log": "clog", "sin": "csin", "cos": "ccos",
        "tan": "ctan", "sinh": "csinh", "cosh": "ccosh", "tanh": "ctanh"}

HELPERS = {
    # NumPy's complex division: Smith's algorithm, the larger part of the divisor first;
    # a zero divisor divides each part by +0 (inf or nan per part, NumPy's values)
    "cdiv": """\
static inline {T} npc_cdiv_{T}({T} a, {T} b) {{
  const {F} ar = __builtin_fabs{s}(b.re), ai = __builtin_fabs{s}(b.im);
  if (ar >= ai) {{
    if (ar == 0 && ai == 0) return {T}(a.re / ar, a.im / ar);
    const {F} rat = b.im / b.re, scl = ({F})1.0 / (b.re + b.im * rat);
    return {T}((a.re + a.im * rat) * scl, (a.im - a.re * rat) * scl);
  }}
  const {F} rat = b.re / b.im, scl = ({F})1.0 / (b.im + b.re * rat);
  return {T}((a.re * rat + a.im) * scl, (a.im * rat - a.re) * scl);
}}
""",
    # NumPy's complex reciprocal: the same scaling by the larger part
    "crecip": """\
static inline {T} npc_crecip_{T}({T} a) {{
  const {F} ar = __builtin_fabs{s}(a.re), ai = __builtin_fabs{s}(a.im);
  if (ai <= ar) {{
    const {F} r = a.im / a.re, d = a.re + a.im * r;
    return {T}(1 / d, -r / d);
  }}
  const {F} r = a.re / a.im, d = a.re * r + a.im;
  return {T}(r / d, -1 / d);
}}
""",
    # NumPy's SIMD loop for complex abs (the one its contiguous arrays take): the larger
    # part times sqrt(1 + ratio**2), the ratio squared with one rounding (an FMA): as
    # accurate as hypot (no overflow of re*re + im*im), vectorized, and NumPy's values
    # to the bit where hypot's differed in a third of them (a Mandelbrot mask |z| <= 2
    # would flip); an infinite part gives inf, else a NaN part NaN
    "cabs": """\
static inline {F} npc_cabs_{T}({T} z) {{
  const {F} x = __builtin_fabs{s}(z.re), y = __builtin_fabs{s}(z.im);
  const {F} hi = x > y ? x : y, lo = x > y ? y : x;
  const {F} r = hi == 0 ? ({F})0 : lo / hi;
  const {F} h = hi * __builtin_sqrt{s}(__builtin_fma{s}(r, r, ({F})1));
  const {F} inf = __builtin_inf{s}();
  return (x == inf || y == inf) ? inf : ((x != x || y != y) ? x + y : h);
}}
""",
    "libc": """\
extern "C" {F} _Complex {fn}({F} _Complex);
static inline {T} npc_{fn}_{T}({T} z) {{
  const {F} _Complex r = {fn}(__builtin_complex(z.re, z.im));
  return {T}(__real__ r, __imag__ r);
}}
""",
}


def render(op, args, in_dt, out_dt, need):
    """C++ of `op` on complex operands (fusion lowers only the ops of
    ops.COMPLEX_UFUNCS and the parts, ops.COMPLEX_PARTS)."""
    need.add(("complex",))
    T = ctype(in_dt)
    F = PART[T]
    s = "f" if F == "float" else ""
    a = args[0]
    b = args[1] if len(args) > 1 else None
    if op == "real":
        return f"({a}).re"
    if op == "imag":
        return f"({a}).im"
    if op == "add":
        return f"{T}({a}.re + {b}.re, {a}.im + {b}.im)"
    if op == "subtract":
        return f"{T}({a}.re - {b}.re, {a}.im - {b}.im)"
    if op in ("multiply", "square"):
        b = a if op == "square" else b
        if NUMPY2:
            # NumPy 2's SIMD loop (x86-64-v3 and up): each part one product exact in an
            # FMA, (ar*br - ai*bi, ar*bi + ai*br); a chaotic loop (z*z + c) drifts
            # from NumPy's values in a few steps when rounded otherwise
            return (f"{T}(__builtin_fma{s}({a}.re, {b}.re, -({a}.im * {b}.im)), "
                    f"__builtin_fma{s}({a}.re, {b}.im, {a}.im * {b}.re))")
        return f"{T}({a}.re * {b}.re - {a}.im * {b}.im, {a}.re * {b}.im + {a}.im * {b}.re)"
    if op == "negative":
        return f"{T}(-{a}.re, -{a}.im)"
    if op == "positive":
        return f"({a})"
    if op == "conjugate":
        return f"{T}({a}.re, -{a}.im)"
    if op == "equal":
        return f"({a}.re == {b}.re && {a}.im == {b}.im)"
    if op == "not_equal":
        return f"({a}.re != {b}.re || {a}.im != {b}.im)"
    if op == "isnan":
        return f"({a}.re != {a}.re || {a}.im != {a}.im)"
    if op == "isinf":
        return f"(__builtin_isinf({a}.re) || __builtin_isinf({a}.im))"
    if op == "isfinite":
        return f"({a}.re - {a}.re == 0 && {a}.im - {a}.im == 0)"
    if op == "absolute":
        need.add(("helper", "cabs", T))
        return f"npc_cabs_{T}({a})"
    if op == "true_divide":
        need.add(("helper", "cdiv", T))
        return f"npc_cdiv_{T}({a}, {b})"
    if op == "reciprocal":
        need.add(("helper", "crecip", T))
        return f"npc_crecip_{T}({a})"
    if op in LIBC:
        fn = LIBC[op] + s
        need.add(("helper", "libc", T, fn))
        return f"npc_{fn}_{T}({a})"
    raise KeyError(f"no C++ rendering of {op} for {np.dtype(in_dt)}")


def ctype(dtype):
    return CTYPE[np.dtype(dtype).itemsize]


def helper(name, T, extra):
    """The text of a helper of need (declarations() writes each once)."""
    F = PART[T]
    return HELPERS[name].format(T=T, F=F, s="f" if F == "float" else "", fn=extra)


def cast(v, src, dst):
    """C++ of v (of dtype src) as dtype dst, one of them complex: real -> complex has a
    zero imaginary part, complex -> complex rounds each part, complex -> bool is "not
    zero" (fusion refuses complex -> real: NumPy warns and drops the imaginary part)."""
    src, dst = np.dtype(src), np.dtype(dst)
    if dst.kind == "b":
        return f"({v}.re != 0 || {v}.im != 0)"
    T = ctype(dst)
    F = PART[T]
    if src.kind == "c":
        return f"{T}(({F}){v}.re, ({F}){v}.im)"
    return f"{T}(({F})({v}), ({F})0)"
