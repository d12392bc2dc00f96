#pragma once
// clang 16's front end, in process: C++ source text -> unoptimized LLVM module.
#include <memory>
#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace npc {

class ClangFrontend {
public:
  // features: "+avx2", "-avx512fp16", ... exactly as the host reports them, so the
  // IR's target attributes match the TargetMachine that optimizes it.
  ClangFrontend(const std::string& triple, const std::string& cpu,
                const std::vector<std::string>& features);

  // Throws CompileError carrying clang's diagnostics; warnings go to diagnostics.
  std::unique_ptr<llvm::Module> emit(const std::string& source, llvm::LLVMContext& ctx,
                                     std::string& diagnostics) const;

  // The cc1 flags, part of the cache key (a flag change must miss the cache).
  std::string flags() const;

private:
  std::vector<std::string> args_;
};

} // namespace npc
