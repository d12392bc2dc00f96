#include "NvrtcCompiler.hpp"

#include "CudaError.hpp"
#include "DynamicLibrary.hpp"

#include <nvrtc.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <mutex>

namespace npc::cuda {
namespace {

#define NPC_NVRTC_FUNCTIONS(X)                                                            \
  X(nvrtcVersion) X(nvrtcCreateProgram) X(nvrtcCompileProgram) X(nvrtcGetPTXSize)         \
  X(nvrtcGetPTX) X(nvrtcGetProgramLogSize) X(nvrtcGetProgramLog) X(nvrtcDestroyProgram)   \
  X(nvrtcGetErrorString)

struct NvrtcApi {
#define NPC_NVRTC_DECLARE(name) decltype(&::name) name = nullptr;
  NPC_NVRTC_FUNCTIONS(NPC_NVRTC_DECLARE)
#undef NPC_NVRTC_DECLARE
};

#ifdef NPC_CUDA_LIB_DIR
// NVRTC opens its builtins library (libnvrtc-builtins.so.13.0) by name at its first
// compile; the wheels' folder is on no loader path, so load it first, globally: the
// loader then answers NVRTC's request with the copy already in the process.
DynamicLibrary open_from_folder(const std::string& folder) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(folder, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with("libnvrtc-builtins.so.") && name.find(".alt.") == std::string::npos)
      DynamicLibrary::keep_global(entry.path().string());
  }
  return DynamicLibrary({folder + "/libnvrtc.so.13", folder + "/libnvrtc.so.12"});
}
#endif

const NvrtcApi& api() {
  static std::once_flag once;
  static std::unique_ptr<NvrtcApi> table;
  static std::string error;
  std::call_once(once, [] {
    // The toolkit's copy first: it is the one the GPU machine has.
    static DynamicLibrary toolkit({"libnvrtc.so.13", "/usr/local/cuda/lib64/libnvrtc.so.13",
                                   "libnvrtc.so.12", "/usr/local/cuda/lib64/libnvrtc.so.12",
                                   "libnvrtc.so", "/usr/local/cuda/lib64/libnvrtc.so"});
    const DynamicLibrary* found = &toolkit;
#ifdef NPC_CUDA_LIB_DIR
    // Then the build's folder: NVIDIA's wheels in the project's environment, where CI
    // has no toolkit.
    if (!toolkit.ok()) {
      static DynamicLibrary wheel = open_from_folder(NPC_CUDA_LIB_DIR);
      found = &wheel;
    }
#endif
    const DynamicLibrary& lib = *found;
    if (!lib.ok()) {
      error = "NVRTC (libnvrtc.so from the CUDA toolkit) could not be opened: " + lib.error();
      return;
    }
    auto t = std::make_unique<NvrtcApi>();
#define NPC_NVRTC_RESOLVE(name)                                                      \
  t->name = reinterpret_cast<decltype(t->name)>(lib.symbol(#name));                  \
  if (!t->name) {                                                                    \
    error = std::string(lib.path()) + " lacks " #name;                               \
    return;                                                                          \
  }
    NPC_NVRTC_FUNCTIONS(NPC_NVRTC_RESOLVE)
#undef NPC_NVRTC_RESOLVE
    table = std::move(t);
  });
  if (!table)
    throw Unavailable(error);
  return *table;
}

void check(const NvrtcApi& a, nvrtcResult r, const char* what) {
  if (r != NVRTC_SUCCESS)
    throw CudaError(std::string(what) + ": " + a.nvrtcGetErrorString(r));
}

} // namespace

int nvrtc_version() {
  const auto& a = api();
  int major = 0, minor = 0;
  check(a, a.nvrtcVersion(&major, &minor), "nvrtcVersion");
  return major * 1000 + minor * 10;
}

PtxResult compile_to_ptx(const std::string& source, const std::string& name,
                         const std::string& arch, const std::vector<std::string>& options) {
  const auto& a = api();
  nvrtcProgram prog = nullptr;
  check(a, a.nvrtcCreateProgram(&prog, source.c_str(), (name + ".cu").c_str(), 0, nullptr, nullptr),
        "nvrtcCreateProgram");
  // Destroy the program on every path out.
  std::unique_ptr<nvrtcProgram, void (*)(nvrtcProgram*)> guard(&prog, [](nvrtcProgram* p) {
    api().nvrtcDestroyProgram(p);
  });
  std::vector<std::string> opts = {"--gpu-architecture=" + arch};
  opts.insert(opts.end(), options.begin(), options.end());
  std::vector<const char*> argv;
  for (const auto& o : opts)
    argv.push_back(o.c_str());

  auto t0 = std::chrono::steady_clock::now();
  nvrtcResult rc = a.nvrtcCompileProgram(prog, static_cast<int>(argv.size()), argv.data());
  auto t1 = std::chrono::steady_clock::now();

  PtxResult out;
  out.ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  size_t log_size = 0;
  if (a.nvrtcGetProgramLogSize(prog, &log_size) == NVRTC_SUCCESS && log_size > 1) {
    out.log.resize(log_size);
    a.nvrtcGetProgramLog(prog, out.log.data());
    out.log.resize(log_size - 1); // drop the terminating NUL
  }
  if (rc != NVRTC_SUCCESS)
    throw NvrtcError(std::string("NVRTC could not compile ") + name + ": " +
                         a.nvrtcGetErrorString(rc) + (out.log.empty() ? "" : "\n" + out.log),
                     out.log);
  size_t ptx_size = 0;
  check(a, a.nvrtcGetPTXSize(prog, &ptx_size), "nvrtcGetPTXSize");
  out.ptx.resize(ptx_size);
  check(a, a.nvrtcGetPTX(prog, out.ptx.data()), "nvrtcGetPTX");
  if (!out.ptx.empty() && out.ptx.back() == '\0')
    out.ptx.pop_back();
  return out;
}

} // namespace npc::cuda
