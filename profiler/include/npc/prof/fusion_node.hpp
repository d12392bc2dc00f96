#pragma once
// One NumPy op in a fused graph and the kernel it went into.
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace npc::prof {
struct FusionNode {
  std::int64_t id = 0; // required
  std::string op{};    // required
  std::string label{};
  std::int64_t kernel = -1;           // index of the kernel, -1 for none (inputs, eager ops)
  std::vector<std::int64_t> inputs{}; // ids of the nodes it reads
  bool operator==(const FusionNode&) const = default;
};

void to_json(nlohmann::json& j, const FusionNode& v);
void from_json(const nlohmann::json& j, FusionNode& v);
} // namespace npc::prof
