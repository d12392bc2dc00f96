#pragma once
// Report: host/device copies added up per direction.
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>

namespace npc::prof {
struct TransferSummary {
  std::int64_t h2d_count = 0;
  std::int64_t h2d_bytes = 0;
  double h2d_ms = 0.0;
  std::int64_t d2h_count = 0;
  std::int64_t d2h_bytes = 0;
  double d2h_ms = 0.0;
  bool operator==(const TransferSummary&) const = default;
};

void to_json(nlohmann::json& j, const TransferSummary& v);
void from_json(const nlohmann::json& j, TransferSummary& v);
} // namespace npc::prof
