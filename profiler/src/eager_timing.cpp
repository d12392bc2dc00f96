#include "npc/prof/eager_timing.hpp"

#include "npc/prof/json_fields.hpp"

namespace npc::prof {
void to_json(nlohmann::json& j, const EagerTiming& v) {
  j = nlohmann::json{{"graph_id", v.graph_id}, {"ms", v.ms}, {"runs", v.runs}};
}

void from_json(const nlohmann::json& j, EagerTiming& v) {
  constexpr std::string_view ctx = "eager_timing event";
  detail::expect_object(j, ctx);
  EagerTiming r;
  detail::required(j, ctx, "graph_id", r.graph_id);
  detail::required(j, ctx, "ms", r.ms);
  detail::optional(j, ctx, "runs", r.runs);
  v = std::move(r);
}
} // namespace npc::prof
