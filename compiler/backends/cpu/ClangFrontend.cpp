#include "ClangFrontend.hpp"

#include "CompileError.hpp"

#include <clang/Basic/DiagnosticOptions.h>
#include <clang/CodeGen/CodeGenAction.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/CompilerInvocation.h>
#include <clang/Frontend/TextDiagnosticBuffer.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <clang/Lex/PreprocessorOptions.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>

namespace npc {

namespace {
// The virtual file name diagnostics point at.
constexpr const char* kFileName = "npc_kernel.cpp";
} // namespace

ClangFrontend::ClangFrontend(const std::string& triple, const std::string& cpu,
                             const std::vector<std::string>& features) {
  args_ = {"-triple", triple, "-target-cpu", cpu,
           // We run our own pipeline on the result; clang only builds the IR, but -O3
           // still shapes it (lifetime markers, TBAA, inline hints).
           "-O3", "-disable-llvm-passes",
           // NumPy rounds every operation: no FMA contraction, no reassociation.
           "-ffp-contract=off",
           // cc1 leaves -fmath-errno off unless asked: libm calls become readnone
           // (and llvm.sin etc.), which is what lets loops with them vectorize.
           "-fveclib=libmvec", "-std=c++20", "-fno-rtti",
           // Generated code includes nothing: skip header search set-up.
           "-nostdsysteminc", "-nobuiltininc", "-mrelocation-model", "pic", "-pic-level", "2", "-x",
           "c++"};
  bool avx512 = false;
  for (const auto& f : features) {
    args_.push_back("-target-feature");
    args_.push_back(f);
    avx512 = avx512 || f == "+avx512f";
  }
  // x86-64-v4 and Intel server tunings prefer 256-bit vectors; our loops are long
  // and math-heavy (libmvec has 512-bit variants): full-width vectors are up to 2x.
  if (avx512)
    args_.push_back("-mprefer-vector-width=512");
  args_.push_back(kFileName);
}

std::string ClangFrontend::flags() const {
  std::string s;
  for (const auto& a : args_)
    s += a + ' ';
  return s;
}

std::unique_ptr<llvm::Module> ClangFrontend::emit(const std::string& source, llvm::LLVMContext& ctx,
                                                  std::string& diagnostics) const {
  std::vector<const char*> argv;
  argv.reserve(args_.size());
  for (const auto& a : args_)
    argv.push_back(a.c_str());

  auto invocation = std::make_shared<clang::CompilerInvocation>();
  {
    // Argument errors arrive before any source file: a buffer, not a printer.
    clang::TextDiagnosticBuffer arg_diags;
    llvm::IntrusiveRefCntPtr<clang::DiagnosticOptions> opts(new clang::DiagnosticOptions);
    clang::DiagnosticsEngine engine(new clang::DiagnosticIDs, opts, &arg_diags,
                                    /*ShouldOwnClient=*/false);
    if (!clang::CompilerInvocation::CreateFromArgs(*invocation, argv, engine)) {
      std::string msg;
      for (auto it = arg_diags.err_begin(); it != arg_diags.err_end(); ++it)
        msg += it->second + "\n";
      throw CompileError("npcompile: invalid clang options", msg);
    }
  }
  // The preprocessor takes ownership of the remapped buffer.
  invocation->getPreprocessorOpts().addRemappedFile(
      kFileName, llvm::MemoryBuffer::getMemBufferCopy(source, kFileName).release());
  invocation->getFrontendOpts().DisableFree = false; // free everything: no leaks under ASan

  std::string text;
  llvm::raw_string_ostream os(text);
  auto& diag_opts = invocation->getDiagnosticOpts();
  diag_opts.ShowColors = false;
  clang::TextDiagnosticPrinter printer(os, &diag_opts);

  clang::CompilerInstance ci;
  ci.setInvocation(invocation);
  ci.createDiagnostics(&printer, /*ShouldOwnClient=*/false);
  ci.setVerboseOutputStream(os); // "N errors generated." belongs to the diagnostics, not stderr

  clang::EmitLLVMOnlyAction action(&ctx);
  bool ok = ci.ExecuteAction(action);
  os.flush();
  diagnostics += text;
  if (!ok || ci.getDiagnostics().hasErrorOccurred())
    throw CompileError("npcompile: C++ compile failed", text);
  std::unique_ptr<llvm::Module> module = action.takeModule();
  if (!module)
    throw CompileError("npcompile: clang produced no module", text);
  return module;
}

} // namespace npc
