#include "npc/prof/graph_timing.hpp"

#include "npc/prof/json_fields.hpp"

namespace npc::prof {
void to_json(nlohmann::json& j, const GraphTiming& v) {
  j = nlohmann::json{{"graph_id", v.graph_id},
                     {"runs", v.runs},
                     {"compiled_ms", v.compiled_ms},
                     {"eager_ms", v.eager_ms},
                     {"eager_runs", v.eager_runs},
                     {"speedup", v.speedup}};
}

void from_json(const nlohmann::json& j, GraphTiming& v) {
  constexpr std::string_view ctx = "graph timing";
  detail::expect_object(j, ctx);
  GraphTiming r;
  detail::required(j, ctx, "graph_id", r.graph_id);
  detail::optional(j, ctx, "runs", r.runs);
  detail::optional(j, ctx, "compiled_ms", r.compiled_ms);
  detail::optional(j, ctx, "eager_ms", r.eager_ms);
  detail::optional(j, ctx, "eager_runs", r.eager_runs);
  detail::optional(j, ctx, "speedup", r.speedup);
  v = std::move(r);
}
} // namespace npc::prof
