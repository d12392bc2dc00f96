#include "KernelLauncher.hpp"
#include "ThreadPool.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace npc {
namespace {

// Stands in for a generated kernel: out[i] = a[i] * params[0] + params[1].
extern "C" void scale_add(char** bufs, const int64_t* params, int64_t begin, int64_t end) {
  auto* a = reinterpret_cast<const double*>(bufs[0]);
  auto* out = reinterpret_cast<double*>(bufs[1]);
  for (int64_t i = begin; i < end; ++i)
    out[i] = a[i] * static_cast<double>(params[0]) + static_cast<double>(params[1]);
}

TEST(KernelLauncher, RunsOverTheWholeRange) {
  for (int64_t n : {0, 1, 100, 100000}) {
    std::vector<double> a(n), out(n, -1);
    for (int64_t i = 0; i < n; ++i)
      a[i] = static_cast<double>(i);
    char* bufs[] = {reinterpret_cast<char*>(a.data()), reinterpret_cast<char*>(out.data())};
    int64_t params[] = {3, 1};
    ThreadPool pool(3);
    KernelLauncher::run(pool, reinterpret_cast<void*>(&scale_add), bufs, params, n, 1000);
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(out[i], 3.0 * i + 1) << i;
    std::fill(out.begin(), out.end(), -1);
    run_kernel(reinterpret_cast<void*>(&scale_add), bufs, params, n, 16);
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(out[i], 3.0 * i + 1) << i;
  }
}

TEST(KernelLauncher, NullKernelThrows) {
  EXPECT_THROW(run_kernel(nullptr, nullptr, nullptr, 10, 1), std::invalid_argument);
}

} // namespace
} // namespace npc
