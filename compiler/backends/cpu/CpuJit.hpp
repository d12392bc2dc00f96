#pragma once
// The CPU backend: self-contained C++ source -> callable machine code, in process.
// clang 16 front end (-O3 -disable-llvm-passes) -> our O3 pipeline with glibc's
// libmvec as vector library -> object file -> ORC LLJIT. Objects are cached by a
// hash of (source, target, backend version) in memory and on disk.
// No LLVM header leaks out of here: includers stay cheap to compile.
#include "CompileError.hpp"
#include "CompileResult.hpp"

#include <memory>
#include <string>
#include <vector>

namespace npc {

class CpuJit {
public:
  // Bump when anything that changes generated code changes (flags, pipeline, table).
  static constexpr const char* kBackendVersion = "npc-cpu-1";

  // The process-wide JIT, created on first use. shutdown() tears it down (also
  // registered with atexit); code it compiled is invalid afterwards.
  static CpuJit& instance();
  static void shutdown();

  // A separate JIT with its own memory cache (tests; the disk cache is shared).
  CpuJit();
  ~CpuJit();
  CpuJit(const CpuJit&) = delete;
  CpuJit& operator=(const CpuJit&) = delete;

  // Compiles source and returns the addresses of symbols (extern "C" names).
  // Throws CompileError with clang's diagnostics on failure. Thread-safe; calls from
  // several threads build (front end, O3, object) at the same time.
  CompileResult compile(const std::string& source, const std::vector<std::string>& symbols);

  // Debug hook: the module after our O3 pipeline, as text. No cache, no JIT.
  std::string optimized_ir(const std::string& source);

  // Forgets the in-memory key -> code map (the disk cache stays). Code already
  // handed out stays valid until shutdown: callers may still hold its addresses.
  void clear_memory_cache();

  // Each compile() result is one use of its code (CompileResult::cache_key); release()
  // gives one back, and code with no use left is unloaded: its addresses are invalid
  // from then on. A caller that never releases keeps its code for the process's life.
  // (A notebook compiling thousands of distinct kernels kept about 75 KB of JIT memory
  // for each, after the functions and reset() were gone.)
  void release(const std::string& key);
  // release() on the process-wide JIT if it still exists (objects freed at exit).
  static void release_if_alive(const std::string& key);
  // Code loaded now (modules in memory): what tests watch.
  size_t loaded_modules() const;

  // "cpu-name +feat1,+feat2,..." (enabled features only).
  std::string host_cpu() const;
  const std::string& target_triple() const;
  // ${NPC_CACHE_DIR:-$HOME/.cache/npcompile}/v1/cpu, read at each compile.
  static std::string cache_dir();

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace npc
