#pragma once
// Loaded kernels and their launches. Modules are cached by their PTX text, so a graph
// compiled again (a new size, a restarted cache entry) loads nothing twice. Launches can
// be timed with CUDA events (KernelTimes); the times are read once the kernels finish.
#include <cuda.h>

#include <cstdint>
#include <string>
#include <vector>

namespace npc::cuda {

struct LoadedKernel {
  CUfunction function = nullptr;
  double load_ms = 0.0;  // the driver's PTX -> SASS step (0 when cached)
  bool cached = false;
  int max_threads = 0;   // per block, after the driver's register allocation
  int registers = 0;
};

LoadedKernel load_kernel(const std::string& ptx, const std::string& name);

// A kernel's arguments as the driver takes them: one pointer per buffer, then the
// kernel's parameter block (element strides and sizes: `struct { i64 v[K]; }` by value,
// K = max(1, params.size())). `slots` points into this object: do not copy it.
struct KernelArgs {
  KernelArgs(const std::vector<uint64_t>& pointers, const std::vector<int64_t>& params);
  KernelArgs(const KernelArgs&) = delete;
  KernelArgs& operator=(const KernelArgs&) = delete;
  std::vector<uint64_t> pointers;
  std::vector<int64_t> params;
  std::vector<void*> slots;
};

void launch(CUfunction f, unsigned grid, unsigned block, const std::vector<uint64_t>& pointers,
            const std::vector<int64_t>& params, bool timed);

// Milliseconds of each timed launch (direct or in a graph) since the last call, in
// launch order (synchronizes).
std::vector<double> take_timings();

// The same for the launches that have finished, oldest first; never waits, so calls
// return while their kernels run (the rest are read later).
std::vector<double> take_ready_timings();

} // namespace npc::cuda
