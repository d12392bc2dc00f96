#pragma once
// CUDA C source -> PTX with NVRTC, opened at run time like the driver. Needs no GPU: CI
// compiles every seed workload's kernels here.
#include <string>
#include <vector>

namespace npc::cuda {

struct PtxResult {
  std::string ptx;
  std::string log;   // NVRTC's warnings (empty when clean)
  double ms = 0.0;   // wall time of nvrtcCompileProgram
};

// `arch` is a virtual architecture such as "compute_90". Options are NVRTC's own
// ("--fmad=false", ...). Throws NvrtcError with the log when the source is rejected,
// Unavailable when NVRTC cannot be opened.
PtxResult compile_to_ptx(const std::string& source, const std::string& name,
                         const std::string& arch, const std::vector<std::string>& options);

// NVRTC's version as major*1000 + minor*10, or throws Unavailable.
int nvrtc_version();

} // namespace npc::cuda
