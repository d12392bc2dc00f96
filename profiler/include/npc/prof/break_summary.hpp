#pragma once
// Report: one graph break location, deduplicated by (reason, filename, lineno).
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>

namespace npc::prof {
struct BreakSummary {
  std::string reason{}; // required
  std::string filename{};
  std::int64_t lineno = 0;
  std::string hint{};
  std::string function{};
  std::string code{};
  std::int64_t count = 1; // how often it happened
  bool operator==(const BreakSummary&) const = default;
};

void to_json(nlohmann::json& j, const BreakSummary& v);
void from_json(const nlohmann::json& j, BreakSummary& v);
} // namespace npc::prof
