#pragma once
// One graph compiled (or fetched from a cache): phases in milliseconds.
#include <array>
#include <cstdint>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

namespace npc::prof {
struct Compile {
  static constexpr std::string_view kType = "compile";
  static constexpr std::array<std::string_view, 7> kFields{
      "graph_id", "function", "target", "kernels", "phases", "total_ms", "cache"};
  std::int64_t graph_id = -1; // required
  std::string function{};
  std::string target = "cpu"; // "cpu" | "cuda" | "reference"
  std::int64_t kernels = 0;   // number of kernels the graph fused into
  std::map<std::string, double>
      phases{};          // phase name -> ms (trace, fusion, codegen, frontend, optimize, jit, ...)
  double total_ms = 0.0; // defaults to the sum of the phases
  std::string cache = "miss"; // "miss" | "memory" | "disk"
  bool operator==(const Compile&) const = default;
};

void to_json(nlohmann::json& j, const Compile& v);
void from_json(const nlohmann::json& j, Compile& v);
} // namespace npc::prof
