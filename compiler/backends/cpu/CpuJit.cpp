#include "CpuJit.hpp"

#include "ClangFrontend.hpp"
#include "DiskCache.hpp"
#include "LibmvecTable.hpp"

#include <llvm/ADT/StringMap.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/DiagnosticPrinter.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/ErrorHandling.h>
#include <llvm/Support/Host.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/SHA256.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <map>
#include <mutex>
#include <vector>

#include <pwd.h>
#include <unistd.h>

namespace npc {

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

std::string to_string(llvm::Error err) { return llvm::toString(std::move(err)); }

template <typename T> T take(llvm::Expected<T> value, const char* what) {
  if (!value)
    throw CompileError(what, to_string(value.takeError()));
  return std::move(*value);
}

// LLVM calls this instead of abort(); throwing turns a fatal error into a
// CompileError. (Best effort: the frames unwound are built without exceptions,
// so what they own leaks, but the process lives.)
void fatal_handler(void*, const char* reason, bool) {
  throw CompileError("npcompile: LLVM fatal error", reason ? reason : "");
}

// LLVM's default context handler calls exit(1) on an error diagnostic (e.g. bad
// inline asm met in codegen): record errors instead, and throw once it returns.
void context_diagnostic(const llvm::DiagnosticInfo& info, void* errors) {
  if (info.getSeverity() != llvm::DS_Error)
    return;
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::DiagnosticPrinterRawOStream printer(os);
  info.print(printer);
  *static_cast<std::string*>(errors) += "error: " + os.str() + "\n";
}

void init_llvm_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
    llvm::install_fatal_error_handler(fatal_handler, nullptr);
  });
}

std::mutex g_instance_mutex;
CpuJit* g_instance = nullptr;

} // namespace

// What one build (source -> object) uses alone: a TargetMachine is not thread-safe, so
// builds running at once (a graph's kernel groups, compiled from several threads) each
// lease their own; errors the LLVMContext reports during the build.
struct Builder {
  std::unique_ptr<llvm::TargetMachine> tm;
  std::string backend_errors;
};

struct CpuJit::Impl {
  // Guards the caches, the JIT session and the spare builders; builds run outside it.
  std::mutex mutex;
  std::string triple, cpu;
  std::vector<std::string> features; // sorted "+x"/"-x"
  std::string enabled_features;      // "+a,+b"
  std::unique_ptr<LibmvecTable> mvec;
  std::vector<llvm::VecDesc> vec_descs; // point into *mvec's strings
  std::unique_ptr<llvm::TargetLibraryInfoImpl> tlii;
  std::unique_ptr<llvm::orc::JITTargetMachineBuilder> jtmb;
  std::vector<std::unique_ptr<Builder>> spare; // idle builders, under mutex
  llvm::DataLayout layout{""};
  std::unique_ptr<llvm::orc::LLJIT> jit;
  std::unique_ptr<ClangFrontend> frontend;
  std::string key_salt; // everything but the source that shapes the object
  std::map<std::string, llvm::orc::JITDylib*> memory;
  std::map<std::string, size_t> uses; // compile() results not yet released, per key
  std::string session_errors; // filled by the session's error reporter, under mutex
  uint64_t next_dylib = 0;

  Impl() {
    init_llvm_once();
    triple = llvm::sys::getProcessTriple();
    cpu = llvm::sys::getHostCPUName().str();
    llvm::StringMap<bool> host;
    llvm::sys::getHostCPUFeatures(host);
    for (const auto& kv : host)
      features.push_back((kv.second ? "+" : "-") + kv.first().str());
    std::sort(features.begin(), features.end()); // StringMap order is not stable
    for (const auto& f : features)
      if (f[0] == '+')
        enabled_features += (enabled_features.empty() ? "" : ",") + f;
    auto has = [&](const char* f) { return host.count(f) && host.lookup(f); };
    // CPUs newer than LLVM 16 (e.g. AMD Zen 5) come back as "generic", which the
    // X86 target rejects: fall back to the x86-64 level the features reach. The
    // explicit feature list still decides what instructions are used.
    if (cpu.empty() || cpu == "generic")
      cpu = has("avx512f") && has("avx512vl") && has("avx512bw") && has("avx512dq") ? "x86-64-v4"
            : has("avx2") && has("fma") && has("bmi2")                              ? "x86-64-v3"
            : has("sse4.2") && has("popcnt")                                        ? "x86-64-v2"
                                                                                    : "x86-64";

    llvm::orc::JITTargetMachineBuilder jtmb{llvm::Triple(triple)};
    jtmb.setCPU(cpu);
    for (const auto& f : features)
      jtmb.getFeatures().AddFeature(f);
    jtmb.setCodeGenOptLevel(llvm::CodeGenOpt::Aggressive);
    jtmb.setRelocationModel(llvm::Reloc::PIC_);
    jtmb.setCodeModel(llvm::CodeModel::Small);
    jtmb.getOptions().AllowFPOpFusion = llvm::FPOpFusion::Strict; // match NumPy's rounding
    this->jtmb = std::make_unique<llvm::orc::JITTargetMachineBuilder>(jtmb);
    spare.push_back(std::make_unique<Builder>());
    spare.back()->tm =
        take(jtmb.createTargetMachine(), "npcompile: cannot create the host TargetMachine");
    layout = spare.back()->tm->createDataLayout();

    jit = take(llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(jtmb).create(),
               "npcompile: cannot create the ORC JIT");
    // Link errors (missing symbols) go into the next CompileError, not to stderr.
    jit->getExecutionSession().setErrorReporter(
        [this](llvm::Error err) { session_errors += llvm::toString(std::move(err)) + "\n"; });
    // The main dylib only resolves externals: libm etc. from the process, and
    // libmvec, which nothing in the process loads unless we do.
    char prefix = jit->getDataLayout().getGlobalPrefix();
    auto& main = jit->getMainJITDylib();
    main.addGenerator(take(llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(prefix),
                           "npcompile: cannot search the process for symbols"));
    if (auto mvec_gen = llvm::orc::DynamicLibrarySearchGenerator::Load("libmvec.so.1", prefix))
      main.addGenerator(std::move(*mvec_gen));
    else
      llvm::consumeError(mvec_gen.takeError()); // no libmvec: the table below comes out empty

    mvec = std::make_unique<LibmvecTable>(has("avx"), has("avx2"), has("avx512f"));
    for (const auto& e : mvec->entries())
      vec_descs.push_back({e.scalar, e.vector, llvm::ElementCount::getFixed(e.width)});
    tlii = std::make_unique<llvm::TargetLibraryInfoImpl>(llvm::Triple(triple));
    // Our table replaces LLVM's LIBMVEC-X86 one (a superset, host-checked).
    tlii->addVectorizableFunctions(vec_descs);

    frontend = std::make_unique<ClangFrontend>(triple, cpu, features);
    // the LLVM that made an object is part of its key: another version's code is
    // never loaded (its optimizations, its ABI of builtins)
    key_salt = std::string(kBackendVersion) + '\0' + LLVM_VERSION_STRING + '\0' + triple + '\0' + cpu + '\0' + enabled_features +
               '\0' + frontend->flags() + '\0';
    for (const auto& d : vec_descs)
      key_salt += d.VectorFnName.str() + ',';
  }

  ~Impl() {
    memory.clear();
    jit.reset(); // frees all JIT'd code before the TargetMachine it came from
  }

  std::string cache_key(const std::string& source) const {
    llvm::SHA256 h;
    h.update(key_salt);
    h.update(source);
    auto digest = h.final();
    static const char* hex = "0123456789abcdef";
    std::string key;
    for (size_t i = 0; i < 16; ++i) { // 128 bits: collisions are not a concern
      key += hex[digest[i] >> 4];
      key += hex[digest[i] & 15];
    }
    return key;
  }

  // A builder for one build: a spare one, or a new one (a few hundred microseconds).
  std::unique_ptr<Builder> lease() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (!spare.empty()) {
        auto b = std::move(spare.back());
        spare.pop_back();
        return b;
      }
    }
    auto b = std::make_unique<Builder>();
    b->tm = take(jtmb->createTargetMachine(), "npcompile: cannot create the host TargetMachine");
    return b;
  }

  void give_back(std::unique_ptr<Builder> b) {
    b->backend_errors.clear();
    std::lock_guard<std::mutex> lock(mutex);
    spare.push_back(std::move(b));
  }

  std::unique_ptr<llvm::Module> build_ir(Builder& b, const std::string& source,
                                         llvm::LLVMContext& ctx, std::string& diags,
                                         CompileResult* timing) {
    auto t0 = Clock::now();
    b.backend_errors.clear();
    std::unique_ptr<llvm::Module> module = frontend->emit(source, ctx, diags);
    if (timing)
      timing->ms_frontend = ms_since(t0);

    auto t1 = Clock::now();
    // After clang: its code generator installs (and then restores) its own handler.
    ctx.setDiagnosticHandlerCallBack(context_diagnostic, &b.backend_errors);
    module->setTargetTriple(triple);
    module->setDataLayout(layout);
    optimize(*b.tm, *module);
    std::string verify;
    llvm::raw_string_ostream vos(verify);
    if (llvm::verifyModule(*module, &vos))
      throw CompileError("npcompile: invalid module after O3", vos.str());
    if (timing)
      timing->ms_optimize = ms_since(t1);
    return module;
  }

  void optimize(llvm::TargetMachine& tm, llvm::Module& module) {
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    llvm::PipelineTuningOptions pto;
    pto.LoopVectorization = true;
    pto.SLPVectorization = true;
    pto.LoopUnrolling = true;
    pto.LoopInterleaving = true;
    llvm::PassBuilder pb(&tm, pto);
    // Registered before the defaults so the vectorizer sees the libmvec mappings.
    fam.registerPass([&] { return llvm::TargetLibraryAnalysis(*tlii); });
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
    llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
    mpm.run(module, mam);
  }

  std::string emit_object(Builder& b, llvm::Module& module) {
    llvm::SmallVector<char, 0> buffer;
    llvm::raw_svector_ostream os(buffer);
    llvm::legacy::PassManager pm;
    // No second verifier run: build_ir verified the module after O3.
    if (b.tm->addPassesToEmitFile(pm, os, nullptr, llvm::CGFT_ObjectFile, /*DisableVerify=*/true))
      throw CompileError("npcompile: the host target cannot emit object files", "");
    pm.run(module);
    if (!b.backend_errors.empty()) {
      std::string why = std::move(b.backend_errors);
      b.backend_errors.clear();
      throw CompileError("npcompile: LLVM code generation failed", why);
    }
    return std::string(buffer.data(), buffer.size());
  }

  // Each object gets its own dylib: kernels from different sources may reuse names.
  llvm::orc::JITDylib& link(const std::string& object, const std::string& key) {
    auto created = jit->createJITDylib("npc_" + key + "_" + std::to_string(next_dylib++));
    if (!created)
      throw CompileError("npcompile: cannot create a JITDylib", to_string(created.takeError()));
    llvm::orc::JITDylib& jd = *created;
    jd.addToLinkOrder(jit->getMainJITDylib());
    if (auto err = jit->addObjectFile(jd, llvm::MemoryBuffer::getMemBufferCopy(object, key)))
      throw CompileError("npcompile: cannot add the object to the JIT", to_string(std::move(err)));
    return jd;
  }

  std::vector<void*> lookup(llvm::orc::JITDylib& jd, const std::vector<std::string>& symbols) {
    std::vector<void*> out;
    for (const auto& s : symbols) {
      auto addr = jit->lookup(jd, s);
      if (!addr) {
        std::string why = session_errors + to_string(addr.takeError());
        session_errors.clear();
        throw CompileError("npcompile: cannot resolve '" + s + "' in the compiled code", why);
      }
      out.push_back(addr->toPtr<void*>());
    }
    return out;
  }

  // Drops a dylib whose object failed to link (e.g. a damaged cache entry).
  void discard(llvm::orc::JITDylib& jd) {
    if (auto err = jit->getExecutionSession().removeJITDylib(jd))
      llvm::consumeError(std::move(err));
  }
};

CpuJit& CpuJit::instance() {
  std::lock_guard<std::mutex> lock(g_instance_mutex);
  if (g_instance == nullptr) {
    g_instance = new CpuJit();
    static bool registered = false;
    if (!registered) {
      registered = true;
      std::atexit(&CpuJit::shutdown);
    }
  }
  return *g_instance;
}

void CpuJit::shutdown() {
  std::lock_guard<std::mutex> lock(g_instance_mutex);
  delete g_instance;
  g_instance = nullptr;
}

CpuJit::CpuJit() : impl_(std::make_unique<Impl>()) {}
CpuJit::~CpuJit() = default;

namespace {
// This user's home as the password database has it (a service started without HOME)
std::string passwd_home() {
  std::vector<char> buf(16384);
  struct passwd pw;
  struct passwd* found = nullptr;
  if (::getpwuid_r(::geteuid(), &pw, buf.data(), buf.size(), &found) != 0 || !found ||
      !found->pw_dir || !*found->pw_dir)
    return {};
  return found->pw_dir;
}

// Without any home: a folder this process makes under the temporary folder, of a name
// no one can guess or make first (mkdtemp, 0700), once per process. A fixed name such
// as /tmp/npcompile-cache-<uid> could be made first by another user.
std::string private_temp() {
  static const std::string dir = [] {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/npcompile-XXXXXX";
    std::vector<char> name(pattern.begin(), pattern.end());
    name.push_back('\0');
    return ::mkdtemp(name.data()) ? std::string(name.data()) : std::string();
  }();
  return dir;
}
} // namespace

std::string CpuJit::cache_dir() {
  std::string base;
  if (const char* d = std::getenv("NPC_CACHE_DIR"); d && *d)
    base = d;
  else if (const char* home = std::getenv("HOME"); home && *home)
    base = std::string(home) + "/.cache/npcompile";
  else if (std::string pw = passwd_home(); !pw.empty())
    base = pw + "/.cache/npcompile";
  else
    base = private_temp();
  return base + "/v1/cpu";
}

CompileResult CpuJit::compile(const std::string& source, const std::vector<std::string>& symbols) {
  auto t0 = Clock::now();
  std::unique_lock<std::mutex> lock(impl_->mutex);
  CompileResult r;
  r.cache_key = impl_->cache_key(source);

  if (auto it = impl_->memory.find(r.cache_key); it != impl_->memory.end()) {
    r.cache_hit = true;
    r.addresses = impl_->lookup(*it->second, symbols);
    ++impl_->uses[r.cache_key];
    r.ms_total = ms_since(t0);
    return r;
  }

  DiskCache disk(cache_dir());
  auto t_disk = Clock::now();
  if (auto object = disk.load(r.cache_key, &r.diagnostics)) {
    auto& jd = impl_->link(*object, r.cache_key);
    try {
      r.addresses = impl_->lookup(jd, symbols);
      r.cache_hit = r.from_disk = true;
      r.ms_codegen = ms_since(t_disk);
      impl_->memory[r.cache_key] = &jd;
      ++impl_->uses[r.cache_key];
      r.ms_total = ms_since(t0);
      return r;
    } catch (const CompileError& e) {
      // A valid-looking file that does not link or lacks a symbol: rebuild it.
      impl_->discard(jd);
      r.addresses.clear();
      r.diagnostics +=
          std::string("npcompile: cached object unusable, rebuilding: ") + e.what() + "\n";
    }
  }

  lock.unlock(); // the build needs no shared state: other threads' builds run meanwhile
  std::string object;
  {
    auto builder = impl_->lease();
    llvm::LLVMContext ctx;
    auto module = impl_->build_ir(*builder, source, ctx, r.diagnostics, &r);
    auto t_cg = Clock::now();
    object = impl_->emit_object(*builder, *module);
    r.ms_codegen = ms_since(t_cg);
    module.reset(); // before its context
    impl_->give_back(std::move(builder));
  }
  lock.lock();
  auto t_link = Clock::now();
  if (auto it = impl_->memory.find(r.cache_key); it != impl_->memory.end()) {
    r.addresses = impl_->lookup(*it->second, symbols); // another thread built it meanwhile
    ++impl_->uses[r.cache_key];
    r.ms_total = ms_since(t0);
    return r;
  }
  auto& jd = impl_->link(object, r.cache_key);
  try {
    r.addresses = impl_->lookup(jd, symbols);
  } catch (...) {
    impl_->discard(jd);
    throw;
  }
  impl_->memory[r.cache_key] = &jd;
  ++impl_->uses[r.cache_key];
  r.ms_codegen += ms_since(t_link);
  std::string note;
  if (!disk.store(r.cache_key, object, &note))
    r.diagnostics += note + "\n";
  r.ms_total = ms_since(t0);
  return r;
}

std::string CpuJit::optimized_ir(const std::string& source) {
  auto builder = impl_->lease();
  llvm::LLVMContext ctx;
  std::string diags;
  auto module = impl_->build_ir(*builder, source, ctx, diags, nullptr);
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os, nullptr);
  module.reset();
  impl_->give_back(std::move(builder));
  return os.str();
}

void CpuJit::clear_memory_cache() {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  // The code stays loaded (its dylibs are only forgotten), and the use counts stay: a
  // key compiled again counts its old uses with its new ones, so that nothing still
  // called is unloaded (the old dylib is then never unloaded at all, as before)
  impl_->memory.clear();
}

void CpuJit::release(const std::string& key) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  auto use = impl_->uses.find(key);
  if (use == impl_->uses.end() || --use->second > 0)
    return;
  impl_->uses.erase(use);
  if (auto it = impl_->memory.find(key); it != impl_->memory.end()) {
    impl_->discard(*it->second);
    impl_->memory.erase(it);
  }
}

void CpuJit::release_if_alive(const std::string& key) {
  std::lock_guard<std::mutex> lock(g_instance_mutex);
  if (g_instance != nullptr)
    g_instance->release(key);
}

size_t CpuJit::loaded_modules() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->memory.size();
}

std::string CpuJit::host_cpu() const { return impl_->cpu + " " + impl_->enabled_features; }

const std::string& CpuJit::target_triple() const { return impl_->triple; }

} // namespace npc
