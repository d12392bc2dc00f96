#include "LibmvecTable.hpp"

#include <dlfcn.h>

namespace npc {

namespace {
struct Fn {
  const char* name;
  int arity;
  bool has_intrinsic; // clang emits llvm.<name>.f64 for it under -fno-math-errno
};
// Everything glibc 2.36's libmvec exports (sincos is left out: pointer arguments).
constexpr Fn kFns[] = {
    {"acos", 1, false},  {"acosh", 1, false}, {"asin", 1, false},  {"asinh", 1, false},
    {"atan", 1, false},  {"atanh", 1, false}, {"cbrt", 1, false},  {"cos", 1, true},
    {"cosh", 1, false},  {"erf", 1, false},   {"erfc", 1, false},  {"exp", 1, true},
    {"exp10", 1, false}, {"exp2", 1, true},   {"expm1", 1, false}, {"log", 1, true},
    {"log10", 1, true},  {"log1p", 1, false}, {"log2", 1, true},   {"sin", 1, true},
    {"sinh", 1, false},  {"tan", 1, false},   {"tanh", 1, false},  {"atan2", 2, false},
    {"hypot", 2, false}, {"pow", 2, true},
};
} // namespace

LibmvecTable::LibmvecTable(bool has_avx, bool has_avx2, bool has_avx512f) {
  // One variant per width: the vectorizer looks entries up by (name, width).
  // Vector ABI letters: b = SSE (128 bit), c = AVX, d = AVX2 (256), e = AVX-512.
  struct Isa {
    char letter;
    unsigned bits;
  };
  std::vector<Isa> isas = {{'b', 128}};
  if (has_avx2)
    isas.push_back({'d', 256});
  else if (has_avx)
    isas.push_back({'c', 256});
  if (has_avx512f)
    isas.push_back({'e', 512});

  // RTLD_NOLOAD first: the JIT has normally loaded it already.
  void* lib = dlopen("libmvec.so.1", RTLD_LAZY | RTLD_NOLOAD);
  if (lib == nullptr)
    lib = dlopen("libmvec.so.1", RTLD_LAZY);
  if (lib == nullptr)
    return; // no libmvec: loops with math calls stay scalar

  for (const Fn& fn : kFns) {
    for (int is_float = 0; is_float < 2; ++is_float) {
      std::string scalar = std::string(fn.name) + (is_float ? "f" : "");
      for (const Isa& isa : isas) {
        unsigned width = isa.bits / (is_float ? 32 : 64);
        std::string vec = std::string("_ZGV") + isa.letter + "N" + std::to_string(width) +
                          (fn.arity == 2 ? "vv_" : "v_") + scalar;
        if (dlsym(lib, vec.c_str()) == nullptr)
          continue;
        entries_.push_back({scalar, vec, width});
        if (fn.has_intrinsic)
          entries_.push_back(
              {std::string("llvm.") + fn.name + (is_float ? ".f32" : ".f64"), vec, width});
      }
    }
  }
  dlclose(lib); // only drops our reference; the JIT keeps its own
}

} // namespace npc
