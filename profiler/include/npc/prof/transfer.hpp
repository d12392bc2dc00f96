#pragma once
// A host/device copy.
#include <array>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

namespace npc::prof {
struct Transfer {
  static constexpr std::string_view kType = "transfer";
  static constexpr std::array<std::string_view, 3> kFields{"direction", "bytes", "ms"};
  std::string direction{}; // required; "h2d" | "d2h"
  std::int64_t bytes = 0;  // required
  double ms = 0.0;
  bool operator==(const Transfer&) const = default;
};

void to_json(nlohmann::json& j, const Transfer& v);
void from_json(const nlohmann::json& j, Transfer& v);
} // namespace npc::prof
