#pragma once
// Tracing stopped because Python needed a concrete value.
#include <array>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

namespace npc::prof {
struct GraphBreak {
  static constexpr std::string_view kType = "graph_break";
  static constexpr std::array<std::string_view, 8> kFields{
      "reason", "filename", "lineno", "hint", "function", "code", "kind", "site"};
  std::string reason{}; // required; why tracing stopped, in words
  std::string filename{};
  std::int64_t lineno = 0;
  std::string hint{}; // what the user can do about it
  std::string function{};
  std::string code{}; // the source line text
  std::string kind{}; // what Python asked for: "bool", "number", "data_shape", ...
  std::string site{}; // the traced function or cell the break is in
  bool operator==(const GraphBreak&) const = default;
};

void to_json(nlohmann::json& j, const GraphBreak& v);
void from_json(const nlohmann::json& j, GraphBreak& v);
} // namespace npc::prof
