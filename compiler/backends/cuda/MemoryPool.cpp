#include "MemoryPool.hpp"

#include "Device.hpp"

namespace npc::cuda {

MemoryPool& MemoryPool::get() {
  // Leaked: blocks may be released by Python objects destroyed after static teardown.
  static MemoryPool* pool = new MemoryPool;
  return *pool;
}

size_t MemoryPool::round(size_t bytes) {
  constexpr size_t small = 512, big = 2 << 20;
  if (bytes == 0)
    bytes = 1;
  if (bytes <= (1 << 20))
    return (bytes + small - 1) / small * small;
  return (bytes + big - 1) / big * big;
}

CUdeviceptr MemoryPool::allocate(size_t bytes, size_t* rounded) {
  const size_t r = round(bytes);
  *rounded = r;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = free_.find(r);
    if (it != free_.end() && !it->second.empty()) {
      CUdeviceptr p = it->second.back();
      it->second.pop_back();
      stats_.cached -= r;
      stats_.in_use += r;
      ++stats_.reuses;
      return p;
    }
  }
  Device& dev = Device::get();
  dev.make_current();
  CUdeviceptr p = 0;
  CUresult res = dev.api.cuMemAlloc(&p, r);
  if (res == CUDA_ERROR_OUT_OF_MEMORY) {
    trim();
    res = dev.api.cuMemAlloc(&p, r);
  }
  dev.api.check(res, "cuMemAlloc (device memory)");
  std::lock_guard<std::mutex> lock(mu_);
  stats_.in_use += r;
  ++stats_.driver_allocs;
  return p;
}

void MemoryPool::release(CUdeviceptr ptr, size_t rounded) {
  std::lock_guard<std::mutex> lock(mu_);
  free_[rounded].push_back(ptr);
  stats_.in_use -= rounded;
  stats_.cached += rounded;
}

void MemoryPool::trim() {
  std::map<size_t, std::vector<CUdeviceptr>> blocks;
  {
    std::lock_guard<std::mutex> lock(mu_);
    blocks.swap(free_);
    stats_.cached = 0;
  }
  Device& dev = Device::get();
  dev.make_current();
  dev.synchronize(); // a kernel may still be reading a block freed by Python
  for (auto& [size, ptrs] : blocks)
    for (CUdeviceptr p : ptrs)
      dev.api.cuMemFree(p);
}

PoolStats MemoryPool::stats() {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

DeviceBuffer::DeviceBuffer(size_t bytes) : bytes_(bytes) {
  ptr_ = MemoryPool::get().allocate(bytes, &rounded_);
}

DeviceBuffer::~DeviceBuffer() {
  // Reuse is safe without a sync: every later use of the block is ordered after the
  // kernels that used it, on the one stream.
  if (ptr_)
    MemoryPool::get().release(ptr_, rounded_);
}

} // namespace npc::cuda
