// The CUDA backend's host side: size classes of the pool, NVRTC (no GPU needed), and
// the message a machine without a driver gets instead of a crash.
#include "CudaError.hpp"
#include "Device.hpp"
#include "MemoryPool.hpp"
#include "NvrtcCompiler.hpp"

#include <gtest/gtest.h>

namespace {

bool nvrtc_present() {
  try {
    npc::cuda::nvrtc_version();
    return true;
  } catch (const npc::cuda::Unavailable&) {
    return false;
  }
}

bool gpu_present() {
  try {
    npc::cuda::Device::get();
    return true;
  } catch (const npc::cuda::Unavailable&) {
    return false;
  }
}

} // namespace

TEST(MemoryPool, SizeClasses) {
  using npc::cuda::MemoryPool;
  EXPECT_EQ(MemoryPool::round(0), 512u);
  EXPECT_EQ(MemoryPool::round(1), 512u);
  EXPECT_EQ(MemoryPool::round(513), 1024u);
  EXPECT_EQ(MemoryPool::round(1 << 20), size_t(1) << 20);
  EXPECT_EQ(MemoryPool::round((1 << 20) + 1), size_t(2) << 20);
  EXPECT_EQ(MemoryPool::round((5 << 20) + 3), size_t(6) << 20);
}

TEST(Nvrtc, CompilesToPtxForTheRequestedArchitecture) {
  if (!nvrtc_present())
    GTEST_SKIP() << "NVRTC not installed";
  auto r = npc::cuda::compile_to_ptx(
      "extern \"C\" __global__ void twice(float* x) { x[threadIdx.x] *= 2.f; }", "twice",
      "compute_90", {"--fmad=false"});
  EXPECT_NE(r.ptx.find(".visible .entry twice("), std::string::npos);
  EXPECT_NE(r.ptx.find(".target sm_90"), std::string::npos);
  EXPECT_GT(r.ms, 0.0);
}

TEST(Nvrtc, RejectionCarriesTheLog) {
  if (!nvrtc_present())
    GTEST_SKIP() << "NVRTC not installed";
  try {
    npc::cuda::compile_to_ptx("__global__ void k() { no_such_name; }", "k", "compute_90", {});
    FAIL() << "compiled an undefined name";
  } catch (const npc::cuda::NvrtcError& e) {
    EXPECT_NE(e.log.find("no_such_name"), std::string::npos);
  }
}

TEST(Device, WithoutAGpuTheReasonIsInWords) {
  if (gpu_present())
    GTEST_SKIP() << "a GPU is present";
  try {
    npc::cuda::Device::get();
    FAIL();
  } catch (const npc::cuda::Unavailable& e) {
    const std::string why = e.what();
    EXPECT_TRUE(why.find("driver") != std::string::npos || why.find("GPU") != std::string::npos) << why;
  }
  // The same answer again, without touching the driver a second time.
  EXPECT_THROW(npc::cuda::Device::get(), npc::cuda::Unavailable);
}
