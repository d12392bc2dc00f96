#pragma once
// The calling convention of every generated CPU kernel, and how it is launched.
//   extern "C" void kernel(char** bufs, const int64_t* params, int64_t begin, int64_t end);
// bufs: base pointers of the operands (byte-addressed: strides are in bytes);
// params: shapes/strides/scalars the kernel reads; [begin, end): the slice of the
// outermost loop this call covers.
#include <cstdint>

namespace npc {

using KernelFn = void (*)(char** bufs, const int64_t* params, int64_t begin, int64_t end);

class ThreadPool;

class KernelLauncher {
public:
  // Runs fn over [0, n_outer) on the pool in chunks of at least grain outer
  // iterations; serially on the caller when there is not enough work for two chunks.
  static void run(void* fn, char** bufs, const int64_t* params, int64_t n_outer, int64_t grain);
  static void run(ThreadPool& pool, void* fn, char** bufs, const int64_t* params, int64_t n_outer,
                  int64_t grain);
};

// Free-function spelling used by the bindings and generated-code hosts.
inline void run_kernel(void* fn, char** bufs, const int64_t* params, int64_t n_outer,
                       int64_t grain) {
  KernelLauncher::run(fn, bufs, params, n_outer, grain);
}

} // namespace npc
