#pragma once
// Errors of the CUDA backend. `Unavailable` means no driver, no GPU or no NVRTC: the
// caller falls back to the CPU and tells the user why; `CudaError` is a failed call.
#include <stdexcept>
#include <string>

namespace npc::cuda {

struct Unavailable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct CudaError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// NVRTC rejected the source: the log is the compiler's own text, for the reports.
struct NvrtcError : std::runtime_error {
  NvrtcError(const std::string& what, std::string log) : std::runtime_error(what), log(std::move(log)) {}
  std::string log;
};

} // namespace npc::cuda
