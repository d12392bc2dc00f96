#pragma once
// Device memory, cached: freed blocks wait in size classes for the next allocation of
// that class, so a replayed graph allocates nothing from the driver.
#include <cuda.h>

#include <cstddef>
#include <map>
#include <mutex>
#include <vector>

namespace npc::cuda {

struct PoolStats {
  size_t in_use = 0, cached = 0, driver_allocs = 0, reuses = 0;
};

class MemoryPool {
 public:
  static MemoryPool& get();

  // A block of at least `bytes` (never null, even for 0 bytes); on out-of-memory the
  // cache is returned to the driver and the allocation retried once.
  CUdeviceptr allocate(size_t bytes, size_t* rounded);
  void release(CUdeviceptr ptr, size_t rounded);
  void trim(); // return every cached block to the driver
  PoolStats stats();

  // The size class of a request: 512-byte steps up to 1 MiB, then 2 MiB steps.
  static size_t round(size_t bytes);

 private:
  std::mutex mu_;
  std::map<size_t, std::vector<CUdeviceptr>> free_;
  PoolStats stats_;
};

// A pooled block owned by one Python object; returned to the pool when dropped.
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  CUdeviceptr ptr() const { return ptr_; }
  size_t nbytes() const { return bytes_; }

 private:
  CUdeviceptr ptr_ = 0;
  size_t bytes_ = 0;
  size_t rounded_ = 0;
};

} // namespace npc::cuda
