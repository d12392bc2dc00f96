#include "Device.hpp"

#include "CudaError.hpp"
#include "Interrupt.hpp"

#include <chrono>
#include <memory>
#include <mutex>
#include <thread>

namespace npc::cuda {

Device::Device(const DriverApi& a) : api(a) {
  CUresult r = api.cuInit(0);
  if (r == CUDA_ERROR_NO_DEVICE)
    throw Unavailable("no CUDA device: the NVIDIA driver found no GPU");
  if (r != CUDA_SUCCESS) {
    const char* text = nullptr;
    api.cuGetErrorString(r, &text);
    throw Unavailable(std::string("the NVIDIA driver did not initialize: ") +
                      (text ? text : "unknown error"));
  }
  int count = 0;
  api.check(api.cuDeviceGetCount(&count), "cuDeviceGetCount");
  if (count == 0)
    throw Unavailable("no CUDA device: the NVIDIA driver found no GPU");
  api.check(api.cuDeviceGet(&device, 0), "cuDeviceGet");
  char buf[256] = {0};
  api.check(api.cuDeviceGetName(buf, sizeof buf - 1, device), "cuDeviceGetName");
  name = buf;
  api.check(api.cuDeviceGetAttribute(&cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device),
            "cuDeviceGetAttribute");
  api.check(api.cuDeviceGetAttribute(&cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device),
            "cuDeviceGetAttribute");
  api.check(api.cuDeviceGetAttribute(&sm_count, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device),
            "cuDeviceGetAttribute");
  api.check(api.cuDeviceTotalMem(&total_memory, device), "cuDeviceTotalMem");
  api.check(api.cuDriverGetVersion(&driver_version), "cuDriverGetVersion");
  // The primary context is the one CuPy, torch and JAX share: arrays can be exchanged.
  api.check(api.cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain");
  make_current();
  api.check(api.cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
}

Device& Device::get() {
  static std::once_flag once;
  static std::unique_ptr<Device> dev;
  static std::string error;
  std::call_once(once, [] {
    try {
      dev.reset(new Device(DriverApi::get()));
    } catch (const std::exception& e) {
      error = e.what();
    }
  });
  if (!dev)
    throw Unavailable(error);
  return *dev;
}

void Device::make_current() const { api.check(api.cuCtxSetCurrent(context), "cuCtxSetCurrent"); }

void Device::synchronize() const { api.check(api.cuStreamSynchronize(stream), "cuStreamSynchronize"); }

void Device::wait_interruptibly() const {
  InterruptWatch watch;
  for (int round = 0;; ++round) {
    const CUresult r = api.cuStreamQuery(stream);
    if (r == CUDA_SUCCESS)
      return;
    if (r != CUDA_ERROR_NOT_READY)
      api.check(r, "cuStreamQuery");
    if (watch.active() && interrupt_requested().exchange(false))
      throw Interrupted();
    // a short kernel is waited for at once; a long one costs a poll every 200 us
    if (round < 100)
      std::this_thread::yield();
    else
      std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

void Device::wait_queued_interruptibly() const {
  if (queued_.exchange(false, std::memory_order_relaxed)) {
    try {
      wait_interruptibly();
    } catch (const Interrupted&) {
      queued_.store(true, std::memory_order_relaxed); // still running: the next wait waits
      throw;
    }
  }
}

void Device::synchronize_queued() const {
  if (queued_.exchange(false, std::memory_order_relaxed))
    synchronize();
}

std::string Device::arch() const {
  return "compute_" + std::to_string(cc_major) + std::to_string(cc_minor);
}

} // namespace npc::cuda
