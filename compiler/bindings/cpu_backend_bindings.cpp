// placeholder: replaced by its owner
#include "bindings.hpp"
void npc::bindings::bind_cpu_backend(pybind11::module_&) {}
