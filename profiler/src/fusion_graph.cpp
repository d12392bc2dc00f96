#include "npc/prof/fusion_graph.hpp"

#include "npc/prof/json_fields.hpp"

namespace npc::prof {
void to_json(nlohmann::json& j, const FusionGraph& v) {
  j = nlohmann::json{{"graph_id", v.graph_id}, {"nodes", v.nodes}, {"decisions", v.decisions}};
}

void from_json(const nlohmann::json& j, FusionGraph& v) {
  constexpr std::string_view ctx = "fusion_graph event";
  detail::expect_object(j, ctx);
  FusionGraph r;
  detail::required(j, ctx, "graph_id", r.graph_id);
  detail::required(j, ctx, "nodes", r.nodes);
  detail::optional(j, ctx, "decisions", r.decisions);
  v = std::move(r);
}
} // namespace npc::prof
