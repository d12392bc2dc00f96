#include "CpuJit.hpp"
#include "KernelLauncher.hpp"
#include "ThreadPool.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

namespace npc {
namespace {

namespace fs = std::filesystem;

// Every test gets its own cache directory, so disk hits are only the ones it made.
class CpuJitTest : public ::testing::Test {
protected:
  void SetUp() override {
    char tmpl[] = "/tmp/npc-cpujit-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    setenv("NPC_CACHE_DIR", dir_.c_str(), 1);
  }
  void TearDown() override {
    unsetenv("NPC_CACHE_DIR");
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string cache_file(const std::string& key) const {
    return CpuJit::cache_dir() + "/" + key + ".o";
  }
  std::string dir_;
};

using Kernel = void (*)(char**, const int64_t*, int64_t, int64_t);

const char* kPointwise = R"(
extern "C" void pointwise(char** bufs, const long* params, long begin, long end) {
  const double* a = (const double*)bufs[0];
  const double* b = (const double*)bufs[1];
  double* out = (double*)bufs[2];
  double s = (double)params[0];
  for (long i = begin; i < end; ++i) out[i] = a[i] * b[i] + s;
}
)";

const char* kMath = R"(
extern "C" double sin(double);
extern "C" double exp(double);
extern "C" double tanh(double);
extern "C" float sinf(float);
extern "C" float expf(float);
extern "C" float tanhf(float);
extern "C" void math_f64(char** bufs, const long*, long begin, long end) {
  const double* __restrict__ x = (const double*)bufs[0];
  double* __restrict__ s = (double*)bufs[1];
  double* __restrict__ e = (double*)bufs[2];
  double* __restrict__ t = (double*)bufs[3];
  for (long i = begin; i < end; ++i) { s[i] = sin(x[i]); e[i] = exp(x[i]); t[i] = tanh(x[i]); }
}
extern "C" void math_f32(char** bufs, const long*, long begin, long end) {
  const float* __restrict__ x = (const float*)bufs[0];
  float* __restrict__ s = (float*)bufs[1];
  float* __restrict__ e = (float*)bufs[2];
  float* __restrict__ t = (float*)bufs[3];
  for (long i = begin; i < end; ++i) { s[i] = sinf(x[i]); e[i] = expf(x[i]); t[i] = tanhf(x[i]); }
}
)";

template <typename T> int64_t ulp_distance(T a, T b) {
  using I = std::conditional_t<sizeof(T) == 8, int64_t, int32_t>;
  if (a == b)
    return 0;
  if (std::isnan(a) || std::isnan(b))
    return std::isnan(a) && std::isnan(b) ? 0 : INT32_MAX;
  auto ord = [](T v) {
    I i = std::bit_cast<I>(v);
    return i < 0 ? static_cast<int64_t>(std::numeric_limits<I>::min()) - i
                 : static_cast<int64_t>(i);
  };
  return std::llabs(ord(a) - ord(b));
}

void check_pointwise(void* fn, int64_t n) {
  std::vector<double> a(n), b(n), out(n, 0);
  for (int64_t i = 0; i < n; ++i) {
    a[i] = 0.5 * i;
    b[i] = 3.0 - i;
  }
  char* bufs[] = {reinterpret_cast<char*>(a.data()), reinterpret_cast<char*>(b.data()),
                  reinterpret_cast<char*>(out.data())};
  int64_t params[] = {7};
  reinterpret_cast<Kernel>(fn)(bufs, params, 0, n);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(out[i], a[i] * b[i] + 7.0) << i;
}

TEST_F(CpuJitTest, PointwiseKernel) {
  CpuJit jit;
  CompileResult r = jit.compile(kPointwise, {"pointwise"});
  ASSERT_EQ(r.addresses.size(), 1u);
  ASSERT_NE(r.addresses[0], nullptr);
  EXPECT_FALSE(r.cache_hit);
  EXPECT_EQ(r.cache_key.size(), 32u);
  EXPECT_GT(r.ms_frontend, 0);
  check_pointwise(r.addresses[0], 1001);
}

TEST_F(CpuJitTest, SingletonAndThreadPoolLaunch) {
  CompileResult r = CpuJit::instance().compile(kPointwise, {"pointwise"});
  const int64_t n = 200000;
  std::vector<double> a(n, 2.0), b(n), out(n, 0);
  for (int64_t i = 0; i < n; ++i)
    b[i] = static_cast<double>(i);
  char* bufs[] = {reinterpret_cast<char*>(a.data()), reinterpret_cast<char*>(b.data()),
                  reinterpret_cast<char*>(out.data())};
  int64_t params[] = {1};
  ThreadPool pool(4);
  KernelLauncher::run(pool, r.addresses[0], bufs, params, n, 4096);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(out[i], 2.0 * i + 1.0);
  CpuJit::shutdown();
  CpuJit::shutdown(); // idempotent
  EXPECT_TRUE(
      CpuJit::instance().compile(kPointwise, {"pointwise"}).from_disk); // fresh JIT, disk hit
  CpuJit::shutdown();
}

TEST_F(CpuJitTest, MathLoopsUseLibmvec) {
  CpuJit jit;
  std::string ir = jit.optimized_ir(kMath);
  // AVX2 variants at least; tanh is one LLVM 16's own table lacks.
  EXPECT_NE(ir.find("_ZGV"), std::string::npos) << ir;
  EXPECT_NE(ir.find("v_sin("), std::string::npos) << ir;
  EXPECT_NE(ir.find("v_expf("), std::string::npos) << ir;
  EXPECT_NE(ir.find("v_tanh("), std::string::npos) << ir;
  EXPECT_NE(ir.find("v_tanhf("), std::string::npos) << ir;
  EXPECT_EQ(ir.find("fmuladd"), std::string::npos); // no contraction

  CompileResult r = jit.compile(kMath, {"math_f64", "math_f32"});
  const int64_t n = 4099; // not a multiple of any vector width: the scalar tail runs too
  std::vector<double> x(n), s(n), e(n), t(n);
  std::vector<float> xf(n), sf(n), ef(n), tf(n);
  for (int64_t i = 0; i < n; ++i) {
    x[i] = -20.0 + 40.0 * i / n;
    xf[i] = static_cast<float>(x[i]);
  }
  char* b64[] = {(char*)x.data(), (char*)s.data(), (char*)e.data(), (char*)t.data()};
  char* b32[] = {(char*)xf.data(), (char*)sf.data(), (char*)ef.data(), (char*)tf.data()};
  reinterpret_cast<Kernel>(r.addresses[0])(b64, nullptr, 0, n);
  reinterpret_cast<Kernel>(r.addresses[1])(b32, nullptr, 0, n);
  int64_t worst64 = 0, worst32 = 0;
  for (int64_t i = 0; i < n; ++i) {
    worst64 = std::max({worst64, ulp_distance(s[i], std::sin(x[i])),
                        ulp_distance(e[i], std::exp(x[i])), ulp_distance(t[i], std::tanh(x[i]))});
    worst32 =
        std::max({worst32, ulp_distance(sf[i], std::sin(xf[i])),
                  ulp_distance(ef[i], std::exp(xf[i])), ulp_distance(tf[i], std::tanh(xf[i]))});
  }
  std::printf("[ accuracy ] libmvec vs libm: worst %lld ulp (f64), %lld ulp (f32)\n",
              (long long)worst64, (long long)worst32);
  // glibc documents libmvec at <= 4 ulp; in practice it is within 1-2 of libm.
  EXPECT_LE(worst64, 4);
  EXPECT_LE(worst32, 4);
}

TEST_F(CpuJitTest, SyntaxErrorThrowsWithDiagnostics) {
  CpuJit jit;
  try {
    jit.compile("extern \"C\" void broken(char** bufs { return 1 }\n", {"broken"});
    FAIL() << "no exception";
  } catch (const CompileError& e) {
    EXPECT_NE(e.diagnostics().find("error:"), std::string::npos) << e.diagnostics();
    EXPECT_NE(e.diagnostics().find("npc_kernel.cpp:1:"), std::string::npos) << e.diagnostics();
    EXPECT_NE(std::string(e.what()).find("error:"), std::string::npos);
  }
  // The JIT is still usable, and nothing was cached for the broken source.
  check_pointwise(jit.compile(kPointwise, {"pointwise"}).addresses[0], 10);
}

TEST_F(CpuJitTest, UndefinedSymbolsThrow) {
  CpuJit jit;
  EXPECT_THROW(jit.compile(kPointwise, {"no_such_kernel"}), CompileError);
  // An external nobody defines: link-time failure, still an exception.
  EXPECT_THROW(jit.compile("extern \"C\" double npc_nowhere(double);\n"
                           "extern \"C\" double f(double x) { return npc_nowhere(x); }\n",
                           {"f"}),
               CompileError);
  check_pointwise(jit.compile(kPointwise, {"pointwise"}).addresses[0], 10);
}

TEST_F(CpuJitTest, BackendErrorThrowsInsteadOfExiting) {
  CpuJit jit;
  // clang accepts any asm text; only LLVM's assembler rejects it, during codegen.
  try {
    jit.compile("extern \"C\" void f() { asm volatile(\"npc_not_an_instruction %eax\"); }\n",
                {"f"});
    FAIL() << "no exception";
  } catch (const CompileError& e) {
    EXPECT_NE(e.diagnostics().find("npc_not_an_instruction"), std::string::npos) << e.diagnostics();
  }
  check_pointwise(jit.compile(kPointwise, {"pointwise"}).addresses[0], 10);
}

TEST_F(CpuJitTest, MemoryCacheHit) {
  CpuJit jit;
  CompileResult first = jit.compile(kPointwise, {"pointwise"});
  CompileResult second = jit.compile(kPointwise, {"pointwise"});
  EXPECT_FALSE(first.cache_hit);
  EXPECT_TRUE(second.cache_hit);
  EXPECT_FALSE(second.from_disk);
  EXPECT_EQ(second.cache_key, first.cache_key);
  EXPECT_EQ(second.addresses, first.addresses);
  EXPECT_EQ(second.ms_frontend, 0);
  // A different source is a different key.
  std::string other = std::string(kPointwise) + "// v2\n";
  EXPECT_NE(jit.compile(other, {"pointwise"}).cache_key, first.cache_key);
}

TEST_F(CpuJitTest, DiskCacheHitInFreshJit) {
  std::string key;
  {
    CpuJit jit;
    CompileResult r = jit.compile(kPointwise, {"pointwise"});
    key = r.cache_key;
    EXPECT_TRUE(fs::exists(cache_file(key)));
    EXPECT_EQ(cache_file(key).rfind(dir_ + "/v1/cpu/", 0), 0u);
  }
  {
    CpuJit jit; // a fresh process would look the same: empty memory cache
    CompileResult r = jit.compile(kPointwise, {"pointwise"});
    EXPECT_TRUE(r.cache_hit);
    EXPECT_TRUE(r.from_disk);
    EXPECT_EQ(r.cache_key, key);
    EXPECT_EQ(r.ms_frontend, 0);
    EXPECT_EQ(r.ms_optimize, 0);
    check_pointwise(r.addresses[0], 999);
    // clear_memory_cache forces the disk path again, in the same JIT.
    jit.clear_memory_cache();
    CompileResult again = jit.compile(kPointwise, {"pointwise"});
    EXPECT_TRUE(again.from_disk);
    check_pointwise(again.addresses[0], 999);
  }
}

void corrupt_and_check(const std::string& path, const std::string& key,
                       void (*damage)(const std::string&)) {
  damage(path);
  {
    CpuJit jit;
    CompileResult r = jit.compile(kPointwise, {"pointwise"});
    EXPECT_FALSE(r.cache_hit);
    EXPECT_EQ(r.cache_key, key);
    EXPECT_NE(r.diagnostics.find("ignored invalid cache file"), std::string::npos) << r.diagnostics;
    check_pointwise(r.addresses[0], 100);
  }
  CpuJit jit; // rebuilt file is good again
  EXPECT_TRUE(jit.compile(kPointwise, {"pointwise"}).from_disk);
}

TEST_F(CpuJitTest, CorruptCacheFilesAreRebuilt) {
  std::string key;
  {
    CpuJit jit;
    key = jit.compile(kPointwise, {"pointwise"}).cache_key;
  }
  std::string path = cache_file(key);
  ASSERT_TRUE(fs::exists(path));
  // Truncated mid-payload.
  corrupt_and_check(path, key,
                    [](const std::string& p) { fs::resize_file(p, fs::file_size(p) / 2); });
  // Empty file.
  corrupt_and_check(path, key, [](const std::string& p) { fs::resize_file(p, 0); });
  // Garbage of the same size.
  corrupt_and_check(path, key, [](const std::string& p) {
    auto size = fs::file_size(p);
    std::ofstream f(p, std::ios::binary | std::ios::trunc);
    for (uintmax_t i = 0; i < size; ++i)
      f.put(static_cast<char>(i * 31 + 7));
  });
  // One flipped byte in the payload: only the checksum notices.
  corrupt_and_check(path, key, [](const std::string& p) {
    std::fstream f(p, std::ios::binary | std::ios::in | std::ios::out);
    f.seekg(-100, std::ios::end);
    char c;
    f.get(c);
    f.seekp(-100, std::ios::end);
    f.put(static_cast<char>(c ^ 0x5a));
  });
}

TEST_F(CpuJitTest, ConcurrentCompiles) {
  CpuJit jit;
  std::vector<std::thread> threads;
  std::vector<void*> got(4);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] { got[t] = jit.compile(kPointwise, {"pointwise"}).addresses[0]; });
  for (auto& t : threads)
    t.join();
  for (void* p : got)
    EXPECT_EQ(p, got[0]);
  check_pointwise(got[0], 50);
}

TEST_F(CpuJitTest, ConcurrentBuildsOfDifferentSources) {
  // Builds run outside the JIT's lock, each with its own TargetMachine: four sources
  // built at once all link and compute.
  CpuJit jit;
  std::vector<std::thread> threads;
  std::vector<void*> got(4);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      std::string source = std::string(kPointwise) + "\n// unit " + std::to_string(t) + "\n";
      got[t] = jit.compile(source, {"pointwise"}).addresses[0];
    });
  for (auto& t : threads)
    t.join();
  for (int t = 0; t < 4; ++t) {
    for (int u = 0; u < t; ++u)
      EXPECT_NE(got[t], got[u]);
    check_pointwise(got[t], 50);
  }
}

TEST_F(CpuJitTest, HostCpu) {
  CpuJit jit;
  std::string cpu = jit.host_cpu();
  EXPECT_FALSE(cpu.empty());
  EXPECT_NE(cpu.find("+sse2"), std::string::npos) << cpu;
  EXPECT_NE(jit.target_triple().find("x86_64"), std::string::npos);
}

// ----- the disk cache's files and folder (issue 16: a FIFO or a link planted in the
// cache hung every process compiling that kernel; a shared /tmp folder)

std::string first_key() {
  CpuJit jit;
  return jit.compile(kPointwise, {"pointwise"}).cache_key;
}

TEST_F(CpuJitTest, CacheFolderIsPrivate) {
  first_key();
  struct stat st;
  ASSERT_EQ(::stat(CpuJit::cache_dir().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  ASSERT_EQ(::stat((dir_ + "/v1").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
}

TEST_F(CpuJitTest, PlantedFifoIsNeitherWaitedOnNorRead) {
  const std::string key = first_key();
  fs::remove(cache_file(key));
  ASSERT_EQ(::mkfifo(cache_file(key).c_str(), 0600), 0);
  CpuJit jit;
  CompileResult r = jit.compile(kPointwise, {"pointwise"}); // returns: no reader waits
  EXPECT_FALSE(r.from_disk);
  EXPECT_NE(r.diagnostics.find("ignored invalid cache file"), std::string::npos);
  check_pointwise(r.addresses[0], 999);
}

TEST_F(CpuJitTest, PlantedLinkIsNotFollowed) {
  const std::string key = first_key();
  const std::string elsewhere = dir_ + "/elsewhere.o";
  fs::rename(cache_file(key), elsewhere);
  fs::create_symlink(elsewhere, cache_file(key));
  CpuJit jit;
  CompileResult r = jit.compile(kPointwise, {"pointwise"});
  EXPECT_FALSE(r.from_disk);
  check_pointwise(r.addresses[0], 999);
}

// A fresh JIT compiles the pointwise kernel itself rather than loading the planted cache
// file, and its diagnostics say why.
void compiled_anew_saying(const char* why) {
  CpuJit jit;
  CompileResult r = jit.compile(kPointwise, {"pointwise"});
  EXPECT_FALSE(r.from_disk);
  EXPECT_NE(r.diagnostics.find(why), std::string::npos) << r.diagnostics;
  check_pointwise(r.addresses[0], 999);
}

TEST_F(CpuJitTest, PlantedLinkToDevZeroIsNeitherFollowedNorRead) {
  // a link to an endless device: following it would read until memory runs out
  const std::string key = first_key();
  fs::remove(cache_file(key));
  fs::create_symlink("/dev/zero", cache_file(key));
  compiled_anew_saying("ignored invalid cache file");
}

TEST_F(CpuJitTest, OversizedCacheFileIsNotRead) {
  // 257 MiB, sparse (no disk used): past the 256 MiB limit, refused before a byte is read
  const std::string key = first_key();
  fs::remove(cache_file(key));
  {
    std::ofstream f(cache_file(key), std::ios::binary);
    ASSERT_TRUE(f.good());
  }
  fs::resize_file(cache_file(key), (std::uintmax_t{257} << 20));
  compiled_anew_saying("too large");
}

TEST_F(CpuJitTest, FolderOfAnotherUserTurnsTheDiskCacheOff) {
  if (::geteuid() != 0)
    GTEST_SKIP() << "needs root to give the folder away";
  first_key();
  ASSERT_EQ(::chown(CpuJit::cache_dir().c_str(), 65534, 65534), 0);
  for (const auto& e : fs::directory_iterator(CpuJit::cache_dir()))
    fs::remove(e.path());
  CpuJit jit;
  CompileResult r = jit.compile(kPointwise, {"pointwise"});
  EXPECT_FALSE(r.from_disk);
  EXPECT_NE(r.diagnostics.find("belongs to another user"), std::string::npos);
  EXPECT_TRUE(fs::is_empty(CpuJit::cache_dir()));   // nothing written there either
  check_pointwise(r.addresses[0], 999);
}

TEST_F(CpuJitTest, WithoutHomeTheCacheIsNeverAFolderOfAKnownNameInTmp) {
  // a fixed /tmp/npcompile-cache-<uid> could be made first by another user
  const char* home = std::getenv("HOME");
  const std::string saved = home ? home : "";
  unsetenv("NPC_CACHE_DIR");
  unsetenv("HOME");
  const std::string dir = CpuJit::cache_dir();
  if (home)
    setenv("HOME", saved.c_str(), 1);
  setenv("NPC_CACHE_DIR", dir_.c_str(), 1);
  EXPECT_EQ(dir.find("npcompile-cache-"), std::string::npos) << dir;
  EXPECT_NE(dir, "/v1/cpu");
  EXPECT_EQ(dir.rfind("/.cache/npcompile/v1/cpu") != std::string::npos ||
                dir.find("/npcompile-") != std::string::npos,
            true)
      << dir;
}

} // namespace
} // namespace npc
