#pragma once
#include <string>
#include <vector>

namespace npc {

// What CpuJit::compile hands back: one address per requested symbol, in order.
struct CompileResult {
  std::vector<void*> addresses;
  double ms_frontend = 0; // clang: parse + IR generation (0 on a cache hit)
  double ms_optimize = 0; // our O3 pipeline (0 on a cache hit)
  double ms_codegen = 0;  // object emission + JIT link + symbol lookup
  double ms_total = 0;
  bool cache_hit = false; // memory or disk
  bool from_disk = false; // the object came from the on-disk cache
  std::string cache_key;
  std::string diagnostics; // clang warnings, cache notes; empty when clean
};

} // namespace npc
