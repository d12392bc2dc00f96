#pragma once
// The GPU npcompile runs on: device 0, its primary context and one stream that every
// copy and launch is ordered on.
#include "DriverApi.hpp"

#include <atomic>
#include <stdexcept>
#include <string>

namespace npc::cuda {

// A wait the user stopped with Ctrl-C (the bindings raise KeyboardInterrupt). The kernel
// it waited for runs on: the next wait waits for it.
struct Interrupted : std::runtime_error {
  Interrupted() : std::runtime_error("interrupted while waiting for the GPU") {}
};

class Device {
 public:
  // Initializes the driver on first use; throws Unavailable ("no CUDA device", "driver
  // too old", ...) when no GPU can be used. The failure is remembered: later calls throw
  // the same message without retrying the driver.
  static Device& get();

  // Binds the context to the calling thread (Python may call from any thread).
  void make_current() const;
  void synchronize() const;
  // What npcompile.synchronize() waits for: the stream, where anything was queued on it
  // since the last such wait (a launch, a device copy, a cuBLAS call); else nothing, as
  // a call that ran in NumPy queued nothing (cuStreamSynchronize of an idle stream still
  // cost the H200's host about 10 us, a seventh of a small program's NumPy time).
  void synchronize_queued() const;
  // synchronize(), but SIGINT ends the wait with Interrupted: the stream is polled, so a
  // 60 s kernel does not hold Ctrl-C for 60 s (cuStreamSynchronize cannot be left). Only
  // where the caller can take an exception: npcompile.synchronize(), a download.
  void wait_interruptibly() const;
  void wait_queued_interruptibly() const;
  // Called by whatever queues work on the stream.
  void queued() const { queued_.store(true, std::memory_order_relaxed); }

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
  mutable std::atomic<bool> queued_{true};
};

} // namespace npc::cuda
