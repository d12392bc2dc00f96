#pragma once
// A jitted function chose, for one argument layout, the compiled path, plain NumPy, (for
// a function with loops) its loops compiled or (device="cuda") the function compiled for
// the host's CPU, by timing them (compiler api/path_choice.py): which, the times, and why.
#include <array>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace npc::prof {
struct PathChoice {
  static constexpr std::string_view kType = "path_choice";
  static constexpr std::array<std::string_view, 9> kFields{
      "function", "choice", "compiled_ms", "numpy_ms", "reason", "loops_ms", "host_ms",
      "budget",   "retry"};
  std::string function{}; // required
  std::string choice{};   // required: "compiled", "numpy", "loops" or "host"
  double compiled_ms = 0.0;
  double numpy_ms = 0.0;
  std::string reason{};
  double loops_ms = 0.0; // the loops path (loops compiled, the rest NumPy), where offered
  double host_ms = 0.0;  // the host path (compiled for the CPU, results to the GPU), where offered
  bool budget = false;   // chosen because compiling ran out of its time budget
  bool retry = false;    // ... and its graphs were new, so a later call tries again
  bool operator==(const PathChoice&) const = default;
};

void to_json(nlohmann::json& j, const PathChoice& v);
void from_json(const nlohmann::json& j, PathChoice& v);
// How the reports name a choice: "plain NumPy", "its loops compiled" (the rest plain
// NumPy), "compiled on the host", or the choice as it is.
std::string path_label(const std::string& choice);
// Did any function time the loops path (the reports then show its column)?
bool any_loops_path(const std::vector<PathChoice>& choices);
// Did any function time the host path (its column)?
bool any_host_path(const std::vector<PathChoice>& choices);
} // namespace npc::prof
