#pragma once
// One graph compiled (or fetched from a cache): phases in milliseconds.
#include <array>
#include <cstdint>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace npc::prof {
// One translation unit of a compile, built on the compiling thread (thread "") or on a
// compile worker: when it began (ms after the compile began) and its own phases. Units
// build in parallel, so the compile's phases, summed over them, may exceed its total.
struct CompileUnit {
  std::string thread{};
  double start_ms = 0.0;
  std::map<std::string, double> phases{};
  bool operator==(const CompileUnit&) const = default;
};

void to_json(nlohmann::json& j, const CompileUnit& v);
void from_json(const nlohmann::json& j, CompileUnit& v);

struct Compile {
  static constexpr std::string_view kType = "compile";
  static constexpr std::array<std::string_view, 9> kFields{"graph_id", "function", "target",
                                                           "kernels",  "phases",   "total_ms",
                                                           "cache",    "units",    "ops"};
  std::int64_t graph_id = -1; // required
  std::string function{};
  std::string target = "cpu"; // "cpu" | "cuda" | "reference"
  std::int64_t kernels = 0;   // number of kernels the graph fused into
  std::map<std::string, double>
      phases{};          // phase name -> ms (trace, fusion, codegen, frontend, optimize, jit, ...)
  double total_ms = 0.0; // defaults to the sum of the phases
  std::string cache = "miss"; // "miss" | "memory" | "disk"
  std::vector<CompileUnit> units{}; // where the CPU backend built translation units
  std::int64_t ops = 0;             // the graph's ops (nodes) before fusion
  bool operator==(const Compile&) const = default;
};

void to_json(nlohmann::json& j, const Compile& v);
void from_json(const nlohmann::json& j, Compile& v);
} // namespace npc::prof
