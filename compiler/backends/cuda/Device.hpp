#pragma once
// The GPU npcompile runs on: device 0, its primary context and one stream that every
// copy and launch is ordered on.
#include "DriverApi.hpp"

#include <string>

namespace npc::cuda {

class Device {
 public:
  // Initializes the driver on first use; throws Unavailable ("no CUDA device", "driver
  // too old", ...) when no GPU can be used. The failure is remembered: later calls throw
  // the same message without retrying the driver.
  static Device& get();

  // Binds the context to the calling thread (Python may call from any thread).
  void make_current() const;
  void synchronize() const;

  const DriverApi& api;
  CUdevice device = 0;
  CUcontext context = nullptr;
  CUstream stream = nullptr;
  std::string name;
  int cc_major = 0, cc_minor = 0, sm_count = 0, driver_version = 0;
  size_t total_memory = 0;

  // "compute_90" for an H200: the virtual architecture kernels are compiled for.
  std::string arch() const;

 private:
  explicit Device(const DriverApi& api);
};

} // namespace npc::cuda
