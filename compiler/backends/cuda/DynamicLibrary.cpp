#include "DynamicLibrary.hpp"

#include <dlfcn.h>

namespace npc::cuda {

DynamicLibrary::DynamicLibrary(const std::vector<std::string>& names) {
  for (const auto& name : names) {
    handle_ = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle_) {
      path_ = name;
      return;
    }
    const char* why = dlerror();
    error_ += (error_.empty() ? "" : "; ") + std::string(why ? why : name.c_str());
  }
}

DynamicLibrary::~DynamicLibrary() {
  // The driver keeps threads of its own: unloading it at exit can crash them.
  // Leave the library mapped for the life of the process.
}

bool DynamicLibrary::keep_global(const std::string& path) {
  return dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL) != nullptr;
}

void* DynamicLibrary::symbol(const char* name) const {
  return handle_ ? dlsym(handle_, name) : nullptr;
}

} // namespace npc::cuda
