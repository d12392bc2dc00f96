#pragma once
// Eager NumPy time of a whole graph, the yardstick for speedups: the median of `runs`
// warm executions (npcompile/exec/eager_timing.py).
#include <array>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

namespace npc::prof {
struct EagerTiming {
  static constexpr std::string_view kType = "eager_timing";
  static constexpr std::array<std::string_view, 3> kFields{"graph_id", "ms", "runs"};
  std::int64_t graph_id = -1; // required
  double ms = 0.0;            // required
  std::int64_t runs = 1;      // the executions ms is the median of
  bool operator==(const EagerTiming&) const = default;
};

void to_json(nlohmann::json& j, const EagerTiming& v);
void from_json(const nlohmann::json& j, EagerTiming& v);
} // namespace npc::prof
