#include "Launcher.hpp"

#include "Device.hpp"

#include <chrono>
#include <mutex>
#include <unordered_map>

namespace npc::cuda {
namespace {

struct State {
  std::mutex mu;
  std::unordered_map<std::string, CUmodule> modules;  // PTX text -> module
  std::vector<std::pair<CUevent, CUevent>> pending;   // timed launches not yet read
  std::vector<CUevent> spare;                         // events to reuse
};

State& state() {
  static State* s = new State; // leaked: modules live as long as the process
  return *s;
}

CUevent take_event(State& s, const DriverApi& a) {
  if (!s.spare.empty()) {
    CUevent e = s.spare.back();
    s.spare.pop_back();
    return e;
  }
  CUevent e = nullptr;
  a.check(a.cuEventCreate(&e, CU_EVENT_DEFAULT), "cuEventCreate");
  return e;
}

} // namespace

LoadedKernel load_kernel(const std::string& ptx, const std::string& name) {
  Device& dev = Device::get();
  dev.make_current();
  const auto& a = dev.api;
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  LoadedKernel k;
  auto it = s.modules.find(ptx);
  CUmodule mod = nullptr;
  if (it != s.modules.end()) {
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
    s.modules.emplace(ptx, mod);
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
  std::vector<int64_t> block_params = params;
  if (block_params.empty())
    block_params.push_back(0);
  std::vector<void*> args;
  args.reserve(pointers.size() + 1);
  for (const uint64_t& p : pointers)
    args.push_back(const_cast<uint64_t*>(&p));
  args.push_back(block_params.data());
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  CUevent start = nullptr, stop = nullptr;
  if (timed) {
    start = take_event(s, a);
    stop = take_event(s, a);
    a.check(a.cuEventRecord(start, dev.stream), "cuEventRecord");
  }
  a.check(a.cuLaunchKernel(f, grid, 1, 1, block, 1, 1, 0, dev.stream, args.data(), nullptr),
          "cuLaunchKernel");
  if (timed) {
    a.check(a.cuEventRecord(stop, dev.stream), "cuEventRecord");
    s.pending.emplace_back(start, stop);
  }
}

namespace {
// The times of pending launches, oldest first. With wait, every one (synchronizing);
// without, only those finished: launches finish in stream order, so the first one not
// done ends the list.
std::vector<double> drain_timings(bool wait) {
  Device& dev = Device::get();
  dev.make_current();
  const auto& a = dev.api;
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  std::vector<double> out;
  out.reserve(s.pending.size());
  for (auto& [start, stop] : s.pending) {
    if (wait) {
      a.check(a.cuEventSynchronize(stop), "cuEventSynchronize");
    } else {
      CUresult r = a.cuEventQuery(stop);
      if (r == CUDA_ERROR_NOT_READY)
        break;
      a.check(r, "cuEventQuery");
    }
    float ms = 0.f;
    a.check(a.cuEventElapsedTime(&ms, start, stop), "cuEventElapsedTime");
    out.push_back(ms);
    s.spare.push_back(start);
    s.spare.push_back(stop);
  }
  s.pending.erase(s.pending.begin(), s.pending.begin() + static_cast<std::ptrdiff_t>(out.size()));
  return out;
}
} // namespace

std::vector<double> take_ready_timings() { return drain_timings(false); }

std::vector<double> take_timings() { return drain_timings(true); }

} // namespace npc::cuda
