#include "npc/prof/fallback.hpp"

#include "npc/prof/json_fields.hpp"

namespace npc::prof {
void to_json(nlohmann::json& j, const Fallback& v) {
  j = nlohmann::json{{"reason", v.reason}, {"graph_id", v.graph_id}, {"detail", v.detail},
                     {"function", v.function}};
}

void from_json(const nlohmann::json& j, Fallback& v) {
  constexpr std::string_view ctx = "fallback event";
  detail::expect_object(j, ctx);
  Fallback r;
  detail::required(j, ctx, "reason", r.reason);
  detail::optional(j, ctx, "graph_id", r.graph_id);
  detail::optional(j, ctx, "detail", r.detail);
  detail::optional(j, ctx, "function", r.function);
  v = std::move(r);
}
} // namespace npc::prof
