// npcompile._native: the C++ half of the npcompile package.
#include "bindings.hpp"

PYBIND11_MODULE(_native, m) {
  m.doc() = "npcompile native core: CPU backend, runtime and profiler";
  m.attr("__version__") = NPC_VERSION;
  auto cpu = m.def_submodule("cpu", "LLVM CPU backend and thread pool");
  npc::bindings::bind_cpu_backend(cpu);
  auto prof = m.def_submodule("profiler", "event store and exporters");
  npc::bindings::bind_profiler(prof);
}
