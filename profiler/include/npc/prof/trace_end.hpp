#pragma once
// Tracing of a function ended: how many graphs it produced and how often it broke.
#include <array>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

namespace npc::prof {
struct TraceEnd {
  static constexpr std::string_view kType = "trace_end";
  static constexpr std::array<std::string_view, 3> kFields{"function", "graphs", "breaks"};
  std::string function{}; // required
  std::int64_t graphs = 0;
  std::int64_t breaks = 0;
  bool operator==(const TraceEnd&) const = default;
};

void to_json(nlohmann::json& j, const TraceEnd& v);
void from_json(const nlohmann::json& j, TraceEnd& v);
} // namespace npc::prof
