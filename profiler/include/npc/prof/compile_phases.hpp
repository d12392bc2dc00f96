#pragma once
// Compile phases in pipeline order (trace, fusion, codegen, frontend, optimize, jit), then
// any others by name: JSON objects do not keep the order they were written in.
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace npc::prof {
std::vector<std::pair<std::string, double>>
ordered_phases(const std::map<std::string, double>& phases);
} // namespace npc::prof
