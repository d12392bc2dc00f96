"""float16 in C++ and CUDA C: the storage type npc_f16 (its 16 bits, NumPy's memory layout)
and the three conversions kernels make (fusion/half.py leaves no other operation on
float16 to render): float16 -> float32 (exact), and float32 or float64 -> float16, rounded
to nearest even with NumPy's overflow to inf, subnormals and NaNs. They are integer code
on the bits, the same on both targets (no libgcc call the JIT would have to find, no
cuda_fp16.h for NVRTC to locate), but for the host CPU's F16C instructions where it has
them, which vectorize."""
import numpy as np

F2, F4, F8 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)

# declared in every kernel's prelude (cpp_ops.PRELUDE): a buffer of float16 is a pointer to it
TYPE = "struct npc_f16 { u16 bits; };\n"

# True: the integer code on the CPU too (the tests run it there: CI's CPUs have F16C, so
# only CUDA would run it otherwise)
SOFTWARE = False

HELPERS = {"half": """\
#if defined(__F16C__) && !defined(__CUDACC__) && !defined(NPC_SOFT_HALF)
// the CPU's own conversions (vcvtph2ps, vcvtps2ph: round to nearest even), which loops
// vectorize: the integer code below kept a float16 loop scalar, np.cos of 2M int8s
// 0.87x NumPy. A NaN comes out quiet (its payload otherwise kept): still a NaN.
static inline float npc_h2f(npc_f16 h) { return (float)__builtin_bit_cast(_Float16, h.bits); }
static inline npc_f16 npc_f2h(float f) {
  npc_f16 out; out.bits = __builtin_bit_cast(u16, (_Float16)f); return out;
}
#define NPC_F64_BITS(x) __builtin_bit_cast(u64, x)
#else
#if defined(__CUDACC__)
#define NPC_F32_BITS(x) __float_as_uint(x)
#define NPC_BITS_F32(u) __uint_as_float(u)
#define NPC_F64_BITS(x) ((u64)__double_as_longlong(x))
#else
#define NPC_F32_BITS(x) __builtin_bit_cast(u32, x)
#define NPC_BITS_F32(u) __builtin_bit_cast(float, u)
#define NPC_F64_BITS(x) __builtin_bit_cast(u64, x)
#endif
static inline float npc_h2f(npc_f16 h) {
  const u32 s = (u32)(h.bits & 0x8000u) << 16, e = (h.bits >> 10) & 0x1fu, m = h.bits & 0x3ffu;
  if (e == 0x1fu) return NPC_BITS_F32(s | 0x7f800000u | (m << 13));
  if (e == 0) { const float v = (float)m * 5.9604644775390625e-08f; return s ? -v : v; }
  return NPC_BITS_F32(s | ((e + 112u) << 23) | (m << 13));
}
// a NaN keeps its top payload bits, and stays a NaN where they are all zero
static inline npc_f16 npc_f2h(float f) {
  const u32 x = NPC_F32_BITS(f), s = (x >> 16) & 0x8000u, a = x & 0x7fffffffu;
  u32 h;
  if (a >= 0x7f800000u) {
    h = 0x7c00u | ((a & 0x7fffffu) >> 13);
    if (a > 0x7f800000u && h == 0x7c00u) h = 0x7c01u;
  } else if (a >= 0x477ff000u) {          // 65520 and up round past 65504
    h = 0x7c00u;
  } else if (a >= 0x38800000u) {          // 2**-14: a normal float16
    h = (a - 0x38000000u) >> 13;
    const u32 r = a & 0x1fffu;
    h += (r > 0x1000u) | ((r == 0x1000u) & (h & 1u));
  } else if (a > 0x33000000u) {           // above 2**-25: a subnormal
    const u32 m = (a & 0x7fffffu) | 0x800000u, sh = 126u - (a >> 23);
    const u32 r = m & ((1u << sh) - 1u), half = 1u << (sh - 1u);
    h = m >> sh;
    h += (r > half) | ((r == half) & (h & 1u));
  } else {
    h = 0;
  }
  npc_f16 out; out.bits = (u16)(s | h); return out;
}
#endif
// float64 rounds to float16 directly, as NumPy's cast does (not through float32, which
// would round twice); no x86 instruction does that before AVX512-FP16
static inline npc_f16 npc_d2h(double d) {
  const u64 x = NPC_F64_BITS(d), a = x & 0x7fffffffffffffffULL;
  const u32 s = (u32)(x >> 48) & 0x8000u;
  u64 h;
  if (a >= 0x7ff0000000000000ULL) {
    h = 0x7c00u | ((a & 0xfffffffffffffULL) >> 42);
    if (a > 0x7ff0000000000000ULL && h == 0x7c00u) h = 0x7c01u;
  } else if (a >= 0x40effe0000000000ULL) {
    h = 0x7c00u;
  } else if (a >= 0x3f10000000000000ULL) {
    h = (a - 0x3f00000000000000ULL) >> 42;
    const u64 r = a & 0x3ffffffffffULL;
    h += (u64)((r > 0x20000000000ULL) | ((r == 0x20000000000ULL) & (h & 1u)));
  } else if (a > 0x3e60000000000000ULL) {
    const u64 m = (a & 0xfffffffffffffULL) | 0x10000000000000ULL;
    const u32 sh = (u32)(1051u - (a >> 52));
    const u64 r = m & ((1ULL << sh) - 1u), half = 1ULL << (sh - 1u);
    h = m >> sh;
    h += (u64)((r > half) | ((r == half) & (h & 1u)));
  } else {
    h = 0;
  }
  npc_f16 out; out.bits = (u16)(s | h); return out;
}
"""}


def helper(name):
    """The C++ of helper `name` (HELPERS), as SOFTWARE asks."""
    return ("#define NPC_SOFT_HALF 1\n" if SOFTWARE else "") + HELPERS[name]


def cast(v, src, dst, need):
    """C++ of value v (dtype src) as dst, one of them float16 and the other float32, or
    float64 into float16 (fusion/half.py makes every other cast of these two)."""
    need.add(("helper", "half", "npc_f16"))
    if src == dst:
        return v
    if src == F2 and dst == F4:
        return f"npc_h2f({v})"
    if dst == F2 and src in (F4, F8):
        return f"npc_{'d' if src == F8 else 'f'}2h({v})"
    raise KeyError(f"no C++ cast of {src} to {dst}")
