#pragma once
// Host <-> device copies on the device's stream. Large copies go through two pinned
// staging buffers in turn (pageable memory moves at ~9 GB/s, pinned at ~55 GB/s on the
// GPU machine): the CPU fills one while the copy engine drains the other.
#include <cuda.h>

#include <cstddef>

namespace npc::cuda {

// Both return when the copy is complete and `host` may be reused.
void copy_to_device(CUdeviceptr dst, const void* host, size_t bytes);
void copy_to_host(void* host, CUdeviceptr src, size_t bytes);
void copy_device(CUdeviceptr dst, CUdeviceptr src, size_t bytes);

} // namespace npc::cuda
