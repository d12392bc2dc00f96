// Compile-time figures for the report (not a test):
//   npc_cpu_jit_bench [1|10]    cold + warm compiles of a 1-op and a 10-op kernel
// Run it twice with the same NPC_CACHE_DIR: the second run's cold compiles are disk hits.
#include "CpuJit.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

namespace {

// Thread CPU time: the machine is shared, wall time includes waiting for a core.
double cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

std::string kernel(int ops, const std::string& tag) {
  std::string body = "double t = a[i];\n";
  const char* steps[] = {"t = t * b[i];", "t = t + 1.5;", "t = t - a[i];", "t = t * 0.25;",
                         "t = t + b[i];", "t = t * t;",   "t = t - 2.0;",  "t = t * b[i];",
                         "t = t + a[i];", "t = t * 3.0;"};
  for (int k = 0; k < ops; ++k)
    body += std::string("    ") + steps[k % 10] + "\n";
  return "// " + tag +
         "\n"
         "extern \"C\" void k(char** bufs, const long* params, long begin, long end) {\n"
         "  const double* a = (const double*)bufs[0];\n"
         "  const double* b = (const double*)bufs[1];\n"
         "  double* out = (double*)bufs[2];\n"
         "  (void)params;\n"
         "  for (long i = begin; i < end; ++i) {\n    " +
         body + "    out[i] = t;\n  }\n}\n";
}

void show(const char* what, const npc::CompileResult& r) {
  std::printf("%-28s total %7.2f ms  (frontend %6.2f, optimize %6.2f, codegen+link %6.2f)%s\n",
              what, r.ms_total, r.ms_frontend, r.ms_optimize, r.ms_codegen,
              r.from_disk   ? "  [disk hit]"
              : r.cache_hit ? "  [memory hit]"
                            : "");
}

} // namespace

int main(int argc, char** argv) {
  auto t0 = std::chrono::steady_clock::now();
  npc::CpuJit& jit = npc::CpuJit::instance();
  double init_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::printf("JIT creation (LLVM init, TargetMachine, LLJIT): %.2f ms; host %s\n", init_ms,
              jit.host_cpu().c_str());
  // argv[1] = 10: the 10-op kernel is the process's first compile (cold) instead.
  int first = argc > 1 ? std::atoi(argv[1]) : 1, second = first == 1 ? 10 : 1;
  double c0 = cpu_ms();
  show(first == 1 ? "first compile, 1-op" : "first compile, 10-op",
       jit.compile(kernel(first, "fixed"), {"k"}));
  double c1 = cpu_ms();
  show(second == 1 ? "then 1-op" : "then 10-op", jit.compile(kernel(second, "fixed"), {"k"}));
  std::printf("  CPU time: first %.2f ms, then %.2f ms\n", c1 - c0, cpu_ms() - c1);
  for (int ops : {1, 10}) {
    std::vector<double> totals, cpus;
    npc::CompileResult last;
    for (int rep = 0; rep < 15; ++rep) {
      double c0 = cpu_ms();
      last = jit.compile(
          kernel(ops,
                 "warm " + std::to_string(rep) + " " +
                     std::to_string(std::chrono::steady_clock::now().time_since_epoch().count())),
          {"k"});
      cpus.push_back(cpu_ms() - c0);
      totals.push_back(last.ms_total);
    }
    std::sort(totals.begin(), totals.end());
    std::sort(cpus.begin(), cpus.end());
    std::printf(
        "warm %2d-op: median %.2f ms, min %.2f ms wall; median %.2f ms CPU (15 distinct sources)\n",
        ops, totals[7], totals[0], cpus[7]);
    show(ops == 1 ? "  last warm 1-op" : "  last warm 10-op", last);
  }
  show("memory hit 10-op", jit.compile(kernel(10, "fixed"), {"k"}));
  npc::CpuJit::shutdown();
  return 0;
}
