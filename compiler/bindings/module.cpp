// npcompile._native: the C++ half of the npcompile package.
#include "bindings.hpp"

#include "MallocTuning.hpp"

PYBIND11_MODULE(_native, m) {
  m.doc() = "npcompile native core: CPU backend, runtime and profiler";
  m.attr("__version__") = NPC_VERSION;
  // process-wide: array programs (and eager NumPy) stop faulting freed memory back in
  m.attr("malloc_tuned") = npc::tune_malloc();
#ifdef NPC_HAVE_CPU
  auto cpu = m.def_submodule("cpu", "LLVM CPU backend and thread pool");
  npc::bindings::bind_cpu_backend(cpu);
#endif
#ifdef NPC_HAVE_CUDA
  auto cuda = m.def_submodule("cuda", "CUDA backend: NVRTC, driver API, device memory");
  npc::bindings::bind_cuda_backend(cuda);
#endif
  auto prof = m.def_submodule("profiler", "event store and exporters");
  npc::bindings::bind_profiler(prof);
  auto trace = m.def_submodule("trace", "the tracer's C++ core: nodes, op recorder, graph fingerprints");
  npc::bindings::bind_trace(trace);
  auto runtime = m.def_submodule("runtime", "runtime routines on NumPy arrays (compaction)");
  npc::bindings::bind_runtime(runtime);
}
