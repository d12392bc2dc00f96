#pragma once
// A shared library opened at run time (dlopen): the CUDA driver and NVRTC are looked up
// when first used, so the module imports on machines without them and says why.
#include <string>
#include <vector>

namespace npc::cuda {

class DynamicLibrary {
 public:
  // Tries each name in order; `error()` says which were tried when none opened.
  explicit DynamicLibrary(const std::vector<std::string>& names);
  ~DynamicLibrary();
  DynamicLibrary(const DynamicLibrary&) = delete;
  DynamicLibrary& operator=(const DynamicLibrary&) = delete;

  bool ok() const { return handle_ != nullptr; }
  const std::string& error() const { return error_; }
  const std::string& path() const { return path_; }
  void* symbol(const char* name) const;
  // Loads a library for the rest of the process with its symbols global, so that a later
  // dlopen by its soname (from another library) finds it; false when it did not load.
  static bool keep_global(const std::string& path);

 private:
  void* handle_ = nullptr;
  std::string error_;
  std::string path_;
};

} // namespace npc::cuda
