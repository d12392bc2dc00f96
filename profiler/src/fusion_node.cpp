#include "npc/prof/fusion_node.hpp"

#include "npc/prof/json_fields.hpp"

namespace npc::prof {
void to_json(nlohmann::json& j, const FusionNode& v) {
  j = nlohmann::json{
      {"id", v.id}, {"op", v.op}, {"label", v.label}, {"kernel", v.kernel}, {"inputs", v.inputs}};
}

void from_json(const nlohmann::json& j, FusionNode& v) {
  constexpr std::string_view ctx = "fusion node";
  detail::expect_object(j, ctx);
  FusionNode r;
  detail::required(j, ctx, "id", r.id);
  detail::required(j, ctx, "op", r.op);
  detail::optional(j, ctx, "label", r.label);
  detail::optional(j, ctx, "kernel", r.kernel);
  detail::optional(j, ctx, "inputs", r.inputs);
  v = std::move(r);
}
} // namespace npc::prof
