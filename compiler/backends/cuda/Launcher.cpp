#include "Launcher.hpp"

#include "Device.hpp"
#include "KernelTimes.hpp"

#include <chrono>
#include <mutex>
#include <unordered_map>

namespace npc::cuda {
namespace {

struct Modules {
  std::mutex mu;
  std::unordered_map<std::string, CUmodule> by_ptx;
};

Modules& modules() {
  static Modules* m = new Modules; // leaked: modules live as long as the process
  return *m;
}

} // namespace

KernelArgs::KernelArgs(const std::vector<uint64_t>& pointers_, const std::vector<int64_t>& params_)
    : pointers(pointers_), params(params_) {
  if (params.empty())
    params.push_back(0);
  slots.reserve(pointers.size() + 1);
  for (uint64_t& p : pointers)
    slots.push_back(&p);
  slots.push_back(params.data());
}

LoadedKernel load_kernel(const std::string& ptx, const std::string& name) {
  Device& dev = Device::get();
  dev.make_current();
  const auto& a = dev.api;
  Modules& m = modules();
  std::lock_guard<std::mutex> lock(m.mu);
  LoadedKernel k;
  auto it = m.by_ptx.find(ptx);
  CUmodule mod = nullptr;
  if (it != m.by_ptx.end()) {
    mod = it->second;
    k.cached = true;
  } else {
    auto t0 = std::chrono::steady_clock::now();
    char log[4096] = {0};
    CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void* vals[] = {log, reinterpret_cast<void*>(sizeof log - 1)};
    CUresult r = a.cuModuleLoadDataEx(&mod, ptx.c_str(), 2, opts, vals);
    if (r != CUDA_SUCCESS && log[0])
      a.check(r, (std::string("cuModuleLoadDataEx: ") + log).c_str());
    a.check(r, "cuModuleLoadDataEx");
    k.load_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    m.by_ptx.emplace(ptx, mod);
  }
  a.check(a.cuModuleGetFunction(&k.function, mod, name.c_str()), "cuModuleGetFunction");
  a.check(a.cuFuncGetAttribute(&k.max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, k.function),
          "cuFuncGetAttribute");
  a.check(a.cuFuncGetAttribute(&k.registers, CU_FUNC_ATTRIBUTE_NUM_REGS, k.function),
          "cuFuncGetAttribute");
  return k;
}

void launch(CUfunction f, unsigned grid, unsigned block, const std::vector<uint64_t>& pointers,
            const std::vector<int64_t>& params, bool timed) {
  Device& dev = Device::get();
  dev.make_current();
  const auto& a = dev.api;
  KernelArgs args(pointers, params);
  KernelTimes& t = KernelTimes::get();
  std::lock_guard<std::mutex> lock(t.mu);
  CUevent start = nullptr, stop = nullptr;
  if (timed) {
    start = t.take_event();
    stop = t.take_event();
    a.check(a.cuEventRecord(start, dev.stream), "cuEventRecord");
  }
  dev.queued();
  a.check(a.cuLaunchKernel(f, grid, 1, 1, block, 1, 1, 0, dev.stream, args.slots.data(), nullptr),
          "cuLaunchKernel");
  if (timed) {
    a.check(a.cuEventRecord(stop, dev.stream), "cuEventRecord");
    t.add_pending(start, stop, true);
  }
}

std::vector<double> take_ready_timings() {
  KernelTimes& t = KernelTimes::get();
  std::lock_guard<std::mutex> lock(t.mu);
  return t.take(false);
}

std::vector<double> take_timings() {
  KernelTimes& t = KernelTimes::get();
  std::lock_guard<std::mutex> lock(t.mu);
  return t.take(true);
}

} // namespace npc::cuda
