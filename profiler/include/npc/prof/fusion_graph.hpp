#pragma once
// A graph as fusion saw it: the picture of which ops went into which kernel.
#include <array>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "npc/prof/fusion_node.hpp"

namespace npc::prof {
struct FusionGraph {
  static constexpr std::string_view kType = "fusion_graph";
  static constexpr std::array<std::string_view, 3> kFields{"graph_id", "nodes", "decisions"};
  std::int64_t graph_id = -1;           // required
  std::vector<FusionNode> nodes{};      // required
  std::vector<std::string> decisions{}; // fusion decisions in words
  bool operator==(const FusionGraph&) const = default;
};

void to_json(nlohmann::json& j, const FusionGraph& v);
void from_json(const nlohmann::json& j, FusionGraph& v);
} // namespace npc::prof
