#include "DriverApi.hpp"

#include "CudaError.hpp"
#include "DynamicLibrary.hpp"

#include <memory>
#include <mutex>

namespace npc::cuda {
namespace {

// Two-level stringizing: the name after cuda.h's version macros (cuMemAlloc_v2, ...).
#define NPC_STR2(x) #x
#define NPC_STR(x) NPC_STR2(x)

std::unique_ptr<DriverApi> load(std::string& error) {
  static DynamicLibrary lib({"libcuda.so.1", "libcuda.so"});
  if (!lib.ok()) {
    error = "the NVIDIA driver library (libcuda.so.1) could not be opened: " + lib.error();
    return nullptr;
  }
  auto api = std::make_unique<DriverApi>();
  api->library = lib.path();
#define NPC_CUDA_RESOLVE(name)                                                        \
  api->name = reinterpret_cast<decltype(api->name)>(lib.symbol(NPC_STR(name)));       \
  if (!api->name) {                                                                   \
    error = std::string("the NVIDIA driver lacks ") + NPC_STR(name) + " (driver too old?)"; \
    return nullptr;                                                                   \
  }
  NPC_CUDA_DRIVER_FUNCTIONS(NPC_CUDA_RESOLVE)
#undef NPC_CUDA_RESOLVE
  return api;
}

} // namespace

const DriverApi& DriverApi::get() {
  static std::once_flag once;
  static std::unique_ptr<DriverApi> api;
  static std::string error;
  std::call_once(once, [] { api = load(error); });
  if (!api)
    throw Unavailable(error);
  return *api;
}

void DriverApi::check(CUresult r, const char* what) const {
  if (r == CUDA_SUCCESS)
    return;
  const char* name = nullptr;
  const char* text = nullptr;
  cuGetErrorName(r, &name);
  cuGetErrorString(r, &text);
  throw CudaError(std::string(what) + ": " + (name ? name : "CUDA error") + " (" +
                  (text ? text : "no description") + ")");
}

} // namespace npc::cuda
