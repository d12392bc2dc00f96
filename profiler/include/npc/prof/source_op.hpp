#pragma once
// One NumPy op of a kernel and the user's line it came from.
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>

namespace npc::prof {
struct SourceOp {
  std::string op{}; // required
  std::int64_t lineno = 0;
  std::string text{}; // the user's source line
  bool operator==(const SourceOp&) const = default;
};

void to_json(nlohmann::json& j, const SourceOp& v);
void from_json(const nlohmann::json& j, SourceOp& v);
} // namespace npc::prof
