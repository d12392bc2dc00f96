// placeholder: replaced by its owner
#include "bindings.hpp"
void npc::bindings::bind_profiler(pybind11::module_&) {}
