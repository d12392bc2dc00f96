#pragma once
#include <string>
#include <vector>

namespace npc {

// Scalar libm function -> glibc libmvec vector variant, for the loop vectorizer.
// LLVM 16's own LIBMVEC-X86 table has only sin/cos/exp/log/pow at SSE/AVX2 widths;
// this one covers all that libmvec exports, at the widths the host can run, and
// keeps only variants the loaded libmvec really has (older glibc lacks some).
class LibmvecTable {
public:
  struct Entry {
    std::string scalar; // "tanh", "tanhf", "llvm.sin.f64", ...
    std::string vector; // "_ZGVdN4v_tanh"
    unsigned width;
  };

  // ISA levels of the host; SSE2 (the "b" variants) is always there on x86-64.
  LibmvecTable(bool has_avx, bool has_avx2, bool has_avx512f);
  const std::vector<Entry>& entries() const { return entries_; }

private:
  std::vector<Entry> entries_;
};

} // namespace npc
