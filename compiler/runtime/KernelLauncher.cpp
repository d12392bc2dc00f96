#include "KernelLauncher.hpp"

#include "Interrupt.hpp"
#include "ThreadPool.hpp"

#include <stdexcept>

namespace npc {

void KernelLauncher::run(void* fn, char** bufs, const int64_t* params, int64_t n_outer,
                         int64_t grain) {
  run(ThreadPool::global(), fn, bufs, params, n_outer, grain);
}

void KernelLauncher::run(ThreadPool& pool, void* fn, char** bufs, const int64_t* params,
                         int64_t n_outer, int64_t grain) {
  if (fn == nullptr)
    throw std::invalid_argument("run_kernel: null kernel address");
  if (n_outer <= 0)
    return;
  if (grain < 1)
    grain = 1;
  auto kernel = reinterpret_cast<KernelFn>(fn);
  // Rows are independent: while Ctrl-C is watched, a range runs a grain of rows at a
  // time and stops at the flag (the kernel's output is then thrown away).
  auto rows = [&](int64_t b, int64_t e) {
    if (!interrupt_watched()) {
      kernel(bufs, params, b, e);
      return;
    }
    for (int64_t s = b; s < e; s += grain) {
      if (interrupt_requested().load(std::memory_order_relaxed))
        return;
      kernel(bufs, params, s, s + grain < e ? s + grain : e);
    }
  };
  // Waking workers costs microseconds; below two grains it cannot pay off.
  if (n_outer < 2 * grain || pool.num_threads() == 1) {
    rows(0, n_outer);
    return;
  }
  pool.parallel_for(n_outer, grain, [&](int64_t b, int64_t e, int) { rows(b, e); });
}

} // namespace npc
