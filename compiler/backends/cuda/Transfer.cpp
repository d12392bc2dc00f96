#include "Transfer.hpp"

#include "Device.hpp"

#include <cstring>
#include <mutex>

namespace npc::cuda {
namespace {

constexpr size_t kChunk = 8 << 20;
constexpr size_t kStagedFrom = 1 << 20; // below this the pipeline costs more than it saves

struct Staging {
  void* buf[2] = {nullptr, nullptr};
  CUevent done[2] = {nullptr, nullptr};
  std::mutex mu;

  // Allocated on the first large copy: pinned memory is a scarce system resource.
  void ensure(const Device& dev) {
    if (buf[0])
      return;
    for (int i = 0; i < 2; ++i) {
      dev.api.check(dev.api.cuMemHostAlloc(&buf[i], kChunk, 0), "cuMemHostAlloc (pinned staging)");
      dev.api.check(dev.api.cuEventCreate(&done[i], CU_EVENT_DISABLE_TIMING), "cuEventCreate");
    }
  }
};

Staging& staging() {
  static Staging* s = new Staging; // leaked: pinned memory goes with the process
  return *s;
}

} // namespace

void copy_to_device(CUdeviceptr dst, const void* host, size_t bytes) {
  Device& dev = Device::get();
  dev.make_current();
  const auto& a = dev.api;
  if (bytes < kStagedFrom) {
    a.check(a.cuMemcpyHtoDAsync(dst, host, bytes, dev.stream), "cuMemcpyHtoDAsync");
    dev.synchronize();
    return;
  }
  Staging& s = staging();
  std::lock_guard<std::mutex> lock(s.mu);
  s.ensure(dev);
  const char* src = static_cast<const char*>(host);
  for (size_t off = 0, i = 0; off < bytes; off += kChunk, ++i) {
    const int b = static_cast<int>(i & 1);
    const size_t n = bytes - off < kChunk ? bytes - off : kChunk;
    a.check(a.cuEventSynchronize(s.done[b]), "cuEventSynchronize"); // its last copy drained
    std::memcpy(s.buf[b], src + off, n);
    a.check(a.cuMemcpyHtoDAsync(dst + off, s.buf[b], n, dev.stream), "cuMemcpyHtoDAsync");
    a.check(a.cuEventRecord(s.done[b], dev.stream), "cuEventRecord");
  }
  dev.synchronize();
}

void copy_to_host(void* host, CUdeviceptr src, size_t bytes) {
  Device& dev = Device::get();
  dev.make_current();
  const auto& a = dev.api;
  if (bytes < kStagedFrom) {
    a.check(a.cuMemcpyDtoHAsync(host, src, bytes, dev.stream), "cuMemcpyDtoHAsync");
    dev.synchronize();
    return;
  }
  Staging& s = staging();
  std::lock_guard<std::mutex> lock(s.mu);
  s.ensure(dev);
  char* out = static_cast<char*>(host);
  const size_t chunks = (bytes + kChunk - 1) / kChunk;
  auto issue = [&](size_t i) {
    const size_t off = i * kChunk, n = bytes - off < kChunk ? bytes - off : kChunk;
    a.check(a.cuMemcpyDtoHAsync(s.buf[i & 1], src + off, n, dev.stream), "cuMemcpyDtoHAsync");
    a.check(a.cuEventRecord(s.done[i & 1], dev.stream), "cuEventRecord");
  };
  issue(0);
  for (size_t i = 0; i < chunks; ++i) {
    if (i + 1 < chunks)
      issue(i + 1); // the next chunk streams in while this one is copied out
    const size_t off = i * kChunk, n = bytes - off < kChunk ? bytes - off : kChunk;
    a.check(a.cuEventSynchronize(s.done[i & 1]), "cuEventSynchronize");
    std::memcpy(out + off, s.buf[i & 1], n);
  }
}

void copy_device(CUdeviceptr dst, CUdeviceptr src, size_t bytes) {
  Device& dev = Device::get();
  dev.make_current();
  // Async on our stream: ordered after the kernels that wrote src and before later ones.
  dev.queued();
  dev.api.check(dev.api.cuMemcpyDtoDAsync(dst, src, bytes, dev.stream), "cuMemcpyDtoDAsync");
}

} // namespace npc::cuda
