#pragma once
// Each part of the native module binds itself; module.cpp only calls these.
#include <pybind11/pybind11.h>

namespace npc::bindings {
void bind_cpu_backend(pybind11::module_& m);
void bind_profiler(pybind11::module_& m);
void bind_trace(pybind11::module_& m);
void bind_runtime(pybind11::module_& m);
void bind_cuda_backend(pybind11::module_& m);
} // namespace npc::bindings
