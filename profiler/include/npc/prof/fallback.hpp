#pragma once
// A graph (or part of one) ran eagerly in NumPy instead of compiled.
#include <array>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

namespace npc::prof {
struct Fallback {
  static constexpr std::string_view kType = "fallback";
  static constexpr std::array<std::string_view, 4> kFields{"reason", "graph_id", "detail",
                                                           "function"};
  std::string reason{}; // required
  std::int64_t graph_id = -1;
  std::string detail{};
  std::string function{}; // the traced function, cell or loop that fell back
  bool operator==(const Fallback&) const = default;
};

void to_json(nlohmann::json& j, const Fallback& v);
void from_json(const nlohmann::json& j, Fallback& v);
} // namespace npc::prof
