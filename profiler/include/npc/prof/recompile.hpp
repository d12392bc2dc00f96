#pragma once
// A cached graph's guards failed and it was compiled again.
#include <array>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace npc::prof {
struct Recompile {
  static constexpr std::string_view kType = "recompile";
  static constexpr std::array<std::string_view, 6> kFields{"function", "filename", "lineno",
                                                           "reason",   "graph_id", "reasons"};
  std::string function{};
  std::string filename{};
  std::int64_t lineno = 0;
  std::string reason{}; // required; the guard diff in words, e.g. "x: dtype float64 -> float32"
  std::int64_t graph_id = -1;
  std::vector<std::string> reasons{}; // the guard diff, one entry per changed guard
  bool operator==(const Recompile&) const = default;
};

void to_json(nlohmann::json& j, const Recompile& v);
void from_json(const nlohmann::json& j, Recompile& v);
} // namespace npc::prof
