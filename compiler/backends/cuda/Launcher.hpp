#pragma once
// Loaded kernels and their launches. Modules are cached by their PTX text, so a graph
// compiled again (a new size, a restarted cache entry) loads nothing twice. Launches can
// be timed with CUDA events; the times are read in one synchronization per graph.
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

// Arguments: one pointer per buffer, then the kernel's parameter block (element strides
// and sizes: `struct { i64 v[K]; }` by value, K = max(1, params.size())).
void launch(CUfunction f, unsigned grid, unsigned block, const std::vector<uint64_t>& pointers,
            const std::vector<int64_t>& params, bool timed);

// Milliseconds of each timed launch since the last call, in launch order (synchronizes).
std::vector<double> take_timings();

// The same for the launches that have finished, oldest first; never waits, so calls
// return while their kernels run (the rest are read later).
std::vector<double> take_ready_timings();

} // namespace npc::cuda
