#pragma once
// The CUDA driver API, resolved from libcuda.so.1 at first use. cuda.h supplies the
// types and the versioned symbol names (cuMemAlloc is cuMemAlloc_v2, ...); nothing links
// against the driver, so a machine without one gets a message, not a failed import.
#include <cuda.h>

#include <string>

namespace npc::cuda {

// X(name): every driver function npcompile calls.
#define NPC_CUDA_DRIVER_FUNCTIONS(X)                                                         \
  X(cuInit) X(cuDriverGetVersion) X(cuDeviceGetCount) X(cuDeviceGet) X(cuDeviceGetName)     \
  X(cuDeviceGetAttribute) X(cuDeviceTotalMem) X(cuDevicePrimaryCtxRetain) X(cuCtxSetCurrent) \
  X(cuCtxSynchronize) X(cuModuleLoadDataEx) X(cuModuleGetFunction) X(cuLaunchKernel)        \
  X(cuMemAlloc) X(cuMemFree) X(cuMemGetInfo) X(cuMemcpyHtoD) X(cuMemcpyDtoH) X(cuMemcpyDtoDAsync) \
  X(cuMemcpyHtoDAsync) X(cuMemcpyDtoHAsync) X(cuMemHostAlloc) X(cuMemFreeHost)             \
  X(cuStreamCreate) X(cuStreamSynchronize) X(cuStreamQuery) X(cuEventCreate) X(cuEventRecord)               \
  X(cuEventSynchronize) X(cuEventQuery) X(cuEventElapsedTime) X(cuEventDestroy) X(cuGetErrorName)          \
  X(cuGetErrorString) X(cuFuncGetAttribute) X(cuGraphCreate) X(cuGraphAddKernelNode)            \
  X(cuGraphAddEventRecordNode) X(cuGraphInstantiate) X(cuGraphExecKernelNodeSetParams)     \
  X(cuGraphExecEventRecordNodeSetEvent) X(cuGraphLaunch) X(cuGraphExecDestroy) X(cuGraphDestroy)

struct DriverApi {
#define NPC_CUDA_DECLARE(name) decltype(&::name) name = nullptr;
  NPC_CUDA_DRIVER_FUNCTIONS(NPC_CUDA_DECLARE)
#undef NPC_CUDA_DECLARE
  std::string library;

  // The loaded table; throws Unavailable (with the reason in words) when the driver
  // library is missing or lacks a function. The result is cached, failures included.
  static const DriverApi& get();

  // Throws CudaError "what: CUDA_ERROR_X (text)" unless r is CUDA_SUCCESS.
  void check(CUresult r, const char* what) const;
};

} // namespace npc::cuda
